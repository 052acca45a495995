package main

/*
#include <stdint.h>
#include "abt.h"
#include "configs.h"
*/
import "C"

import "github.com/goabt/goabt/core"

// Pool and scheduler configurations: the C handles (api/config.c) carry the id of a
// configuration in one of these registries, one per kind, indexed by C's GOABT_CONFIG_POOL and
// GOABT_CONFIG_SCHED. They are not the runtime's: configurations outlive ABT_finalize.
var configs = [2]*core.Configs{
	C.GOABT_CONFIG_POOL:  core.NewConfigs(core.PoolConfig),
	C.GOABT_CONFIG_SCHED: core.NewConfigs(core.SchedConfig),
}

// C's numbers are core's (the one-element array trick of key.go: compiles only when equal).
var (
	_ = [1]struct{}{}[C.GOABT_CONFIG_POOL-int(core.PoolConfig)]
	_ = [1]struct{}{}[C.GOABT_CONFIG_SCHED-int(core.SchedConfig)]
	_ = [1]struct{}{}[C.ABT_SCHED_CONFIG_INT-int(core.ConfigInt)]
	_ = [1]struct{}{}[C.ABT_SCHED_CONFIG_DOUBLE-int(core.ConfigDouble)]
	_ = [1]struct{}{}[C.ABT_SCHED_CONFIG_PTR-int(core.ConfigPtr)]
	_ = [1]struct{}{}[C.ABT_POOL_CONFIG_INT-int(core.ConfigInt)]
	_ = [1]struct{}{}[C.ABT_POOL_CONFIG_DOUBLE-int(core.ConfigDouble)]
	_ = [1]struct{}{}[C.ABT_POOL_CONFIG_PTR-int(core.ConfigPtr)]
)

// configsOf is kind's registry, or nil for a kind that is neither.
func configsOf(kind C.int) *core.Configs {
	if kind != C.GOABT_CONFIG_POOL && kind != C.GOABT_CONFIG_SCHED {
		return nil
	}
	return configs[kind]
}

// goabt_go_config_create makes an empty configuration of kind; its id, or 0.
//
//export goabt_go_config_create
func goabt_go_config_create(kind C.int) C.int {
	c := configsOf(kind)
	if c == nil {
		return 0
	}
	return C.int(c.New())
}

// goabt_go_config_free forgets configuration id of kind.
//
//export goabt_go_config_free
func goabt_go_config_free(kind, id C.int) {
	if c := configsOf(kind); c != nil {
		c.Free(int32(id))
	}
}

// goabt_go_config_set stores value (core's 64 bits) of type typ at key, or removes key when
// remove is not 0; an Argobots code.
//
//export goabt_go_config_set
func goabt_go_config_set(kind, id, key, typ C.int, value C.uint64_t, remove C.int) C.int {
	c := configsOf(kind)
	if c == nil {
		return C.ABT_ERR_OTHER
	}
	if remove != 0 {
		return C.int(c.Remove(int32(id), int32(key), core.ConfigType(typ)))
	}
	return C.int(c.Set(int32(id), int32(key), core.ConfigType(typ), uint64(value)))
}

// goabt_go_config_get writes key's type and value into *typ and *value; an Argobots code.
//
//export goabt_go_config_get
func goabt_go_config_get(kind, id, key C.int, typ *C.int, value *C.uint64_t) C.int {
	c := configsOf(kind)
	if c == nil {
		return C.ABT_ERR_OTHER
	}
	v, code := c.Get(int32(id), int32(key))
	if code == core.CodeSuccess {
		*typ = C.int(v.Type)
		*value = C.uint64_t(v.Bits)
	}
	return C.int(code)
}
