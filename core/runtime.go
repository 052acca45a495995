package core

import "sync/atomic"

// initDepth counts ABT_init calls not yet matched by ABT_finalize. The work-unit engine that
// implements ABT_init and ABT_finalize is not built yet, so nothing raises it today and the
// runtime always reads as uninitialized.
var initDepth atomic.Int32

// Initialized reports whether the Argobots runtime is initialized (ABT_initialized).
func Initialized() bool { return initDepth.Load() > 0 }
