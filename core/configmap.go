package core

import "sync"

// Pool and scheduler configurations (ABT_pool_config_*, ABT_sched_config_*): one idea, a map
// from an integer key to a typed value, kept here for both kinds. The C handles are C objects
// (capi/engine/handles.h) that carry the id of a configuration here; C walks the variadic
// arguments of ABT_sched_config_create and _read and checks handles, and comes here for the
// rest (capi/config.go). Configurations are not tied to ABT_init: programs make them before it
// and keep them after ABT_finalize.
//
// A value crosses as 64 bits: an int as its value sign-extended, a double as its IEEE bits, a
// pointer as its address; C converts both ways (capi/api/config.c), so the stored bits do not
// depend on the byte order.

// ConfigType is a value's type: ABT_SCHED_CONFIG_INT, _DOUBLE, _PTR, which are also the
// numbers of ABT_POOL_CONFIG_INT, _DOUBLE, _PTR.
type ConfigType int32

// The value types.
const (
	ConfigInt    ConfigType = 0 // int
	ConfigDouble ConfigType = 1 // double
	ConfigPtr    ConfigType = 2 // void *
)

// Valid reports whether t is one of the three types.
func (t ConfigType) Valid() bool { return t == ConfigInt || t == ConfigDouble || t == ConfigPtr }

// ConfigKind tells the two APIs apart: they share the map and differ only in the codes some
// errors return.
type ConfigKind int

// The kinds; their numbers are those C passes (GOABT_CONFIG_POOL, GOABT_CONFIG_SCHED).
const (
	PoolConfig  ConfigKind = 0
	SchedConfig ConfigKind = 1
)

// ConfigMaxEntries is how many keys one configuration holds.
const ConfigMaxEntries = 64

// The Argobots error codes configurations return (their names: errorNames).
const (
	CodeSuccess        = 0
	CodeMem            = 2
	CodeInvSchedConfig = 11
	CodeSchedConfig    = 33
	CodeInvArg         = 53
	CodeInvPoolConfig  = 56
)

// invalidCode is what an id that names no configuration of the kind returns.
func (k ConfigKind) invalidCode() int {
	if k == SchedConfig {
		return CodeInvSchedConfig
	}
	return CodeInvPoolConfig
}

// fullCode is what adding a key to a full configuration returns: Argobots 1.2 grows its tables,
// goabt's hold ConfigMaxEntries, and said so with these codes since before they moved here.
func (k ConfigKind) fullCode() int {
	if k == SchedConfig {
		return CodeSchedConfig
	}
	return CodeMem
}

// ConfigValue is one entry's type and value.
type ConfigValue struct {
	Type ConfigType
	Bits uint64
}

// Configs holds the live configurations of one kind, by id. The zero value is not ready: use
// NewConfigs. Safe for concurrent use.
type Configs struct {
	kind ConfigKind
	mu   sync.Mutex
	last int32
	live map[int32]map[int32]ConfigValue
}

// NewConfigs returns an empty registry of configurations of kind k.
func NewConfigs(k ConfigKind) *Configs {
	return &Configs{kind: k, live: make(map[int32]map[int32]ConfigValue)}
}

// Kind is the registry's kind.
func (c *Configs) Kind() ConfigKind { return c.kind }

// Len is how many configurations are live.
func (c *Configs) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.live)
}

// New makes an empty configuration and returns its id, never 0; 0 if every id is taken.
func (c *Configs) New() int32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	for tries := 0; tries < 1<<20; tries++ {
		c.last++
		if c.last <= 0 {
			c.last = 1
		}
		if _, taken := c.live[c.last]; !taken {
			c.live[c.last] = make(map[int32]ConfigValue)
			return c.last
		}
	}
	return 0
}

// Free forgets configuration id; false if it named none.
func (c *Configs) Free(id int32) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.live[id]; !ok {
		return false
	}
	delete(c.live, id)
	return true
}

// Set stores a value of type t at key, replacing any; CodeInvArg for a type that is none of
// the three, the kind's full code when the configuration already holds ConfigMaxEntries other
// keys, the kind's invalid code for an id that names no configuration.
func (c *Configs) Set(id, key int32, t ConfigType, bits uint64) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, ok := c.live[id]
	if !ok {
		return c.kind.invalidCode()
	}
	if !t.Valid() {
		return CodeInvArg
	}
	if _, had := m[key]; !had && len(m) == ConfigMaxEntries {
		return c.kind.fullCode()
	}
	m[key] = ConfigValue{Type: t, Bits: bits}
	return CodeSuccess
}

// Remove deletes key (a set with a NULL value); a key that is not there is no error. A pool
// configuration still wants a valid type (CodeInvArg otherwise); a scheduler's ignores it.
func (c *Configs) Remove(id, key int32, t ConfigType) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, ok := c.live[id]
	if !ok {
		return c.kind.invalidCode()
	}
	if c.kind == PoolConfig && !t.Valid() {
		return CodeInvArg
	}
	delete(m, key)
	return CodeSuccess
}

// Get returns the entry at key; CodeInvArg if there is none, the kind's invalid code for an id
// that names no configuration.
func (c *Configs) Get(id, key int32) (ConfigValue, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, ok := c.live[id]
	if !ok {
		return ConfigValue{}, c.kind.invalidCode()
	}
	v, ok := m[key]
	if !ok {
		return ConfigValue{}, CodeInvArg
	}
	return v, CodeSuccess
}
