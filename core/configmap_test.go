package core

import (
	"math"
	"sync"
	"testing"
)

// intAt is the int stored at key, or def (how C reads the automatic variables).
func intAt(c *Configs, id, key, def int32) int32 {
	v, code := c.Get(id, key)
	if code != CodeSuccess || v.Type != ConfigInt {
		return def
	}
	return int32(v.Bits)
}

func TestConfigCodesAreArgobots(t *testing.T) {
	for code, want := range map[int]string{
		CodeSuccess:        "ABT_SUCCESS",
		CodeMem:            "ABT_ERR_MEM",
		CodeInvSchedConfig: "ABT_ERR_INV_SCHED_CONFIG",
		CodeSchedConfig:    "ABT_ERR_SCHED_CONFIG",
		CodeInvArg:         "ABT_ERR_INV_ARG",
		CodeInvPoolConfig:  "ABT_ERR_INV_POOL_CONFIG",
	} {
		if got, _ := ErrorName(code); got != want {
			t.Errorf("code %d is %s, want %s", code, got, want)
		}
	}
}

func TestConfigSetGetReplaceRemove(t *testing.T) {
	for _, kind := range []ConfigKind{PoolConfig, SchedConfig} {
		c := NewConfigs(kind)
		id := c.New()
		if id == 0 {
			t.Fatal("New returned 0")
		}
		if _, code := c.Get(id, 3); code != CodeInvArg {
			t.Errorf("kind %d: get of an absent key: %d, want CodeInvArg", kind, code)
		}
		d := math.Float64bits(2.5)
		if code := c.Set(id, 3, ConfigDouble, d); code != CodeSuccess {
			t.Fatalf("kind %d: set: %d", kind, code)
		}
		if v, code := c.Get(id, 3); code != CodeSuccess || v != (ConfigValue{ConfigDouble, d}) {
			t.Errorf("kind %d: get: %v %d", kind, v, code)
		}
		// A set replaces the type as well as the value.
		minus := uint64(0xffffffffffffffff) // -1 sign-extended
		c.Set(id, 3, ConfigInt, minus)
		if v, _ := c.Get(id, 3); v.Type != ConfigInt || intAt(c, id, 3, 7) != -1 {
			t.Errorf("kind %d: after replace: %v, Int %d", kind, v, intAt(c, id, 3, 7))
		}
		// Negative keys are the runtime's variables and are keys like any other.
		c.Set(id, -3, ConfigInt, 0)
		if intAt(c, id, -3, 1) != 0 {
			t.Errorf("kind %d: Int(-3) = %d, want 0", kind, intAt(c, id, -3, 1))
		}
		if code := c.Remove(id, 3, ConfigInt); code != CodeSuccess {
			t.Errorf("kind %d: remove: %d", kind, code)
		}
		if _, code := c.Get(id, 3); code != CodeInvArg {
			t.Errorf("kind %d: removed key still there", kind)
		}
		if code := c.Remove(id, 99, ConfigInt); code != CodeSuccess {
			t.Errorf("kind %d: removing an absent key: %d", kind, code)
		}
	}
}

func TestConfigInvalidType(t *testing.T) {
	for _, kind := range []ConfigKind{PoolConfig, SchedConfig} {
		c := NewConfigs(kind)
		id := c.New()
		if code := c.Set(id, 0, 3, 1); code != CodeInvArg {
			t.Errorf("kind %d: set of type 3: %d, want CodeInvArg", kind, code)
		}
		if code := c.Set(id, 0, -1, 1); code != CodeInvArg {
			t.Errorf("kind %d: set of type -1: %d, want CodeInvArg", kind, code)
		}
	}
	// A removal checks the type for a pool configuration only (as goabt always did).
	p := NewConfigs(PoolConfig)
	if code := p.Remove(p.New(), 0, 9); code != CodeInvArg {
		t.Errorf("pool remove with type 9: %d, want CodeInvArg", code)
	}
	s := NewConfigs(SchedConfig)
	if code := s.Remove(s.New(), 0, 9); code != CodeSuccess {
		t.Errorf("sched remove with type 9: %d, want success", code)
	}
}

func TestConfigFullAndInvalidCodes(t *testing.T) {
	for kind, want := range map[ConfigKind][2]int{
		PoolConfig:  {CodeMem, CodeInvPoolConfig},
		SchedConfig: {CodeSchedConfig, CodeInvSchedConfig},
	} {
		c := NewConfigs(kind)
		id := c.New()
		for k := int32(0); k < ConfigMaxEntries; k++ {
			if code := c.Set(id, k, ConfigInt, uint64(k)); code != CodeSuccess {
				t.Fatalf("kind %d: set %d: %d", kind, k, code)
			}
		}
		if code := c.Set(id, ConfigMaxEntries, ConfigInt, 0); code != want[0] {
			t.Errorf("kind %d: set into a full configuration: %d, want %d", kind, code, want[0])
		}
		if code := c.Set(id, 5, ConfigPtr, 0x1000); code != CodeSuccess {
			t.Errorf("kind %d: replacing in a full configuration: %d", kind, code)
		}
		c.Remove(id, 0, ConfigInt)
		if code := c.Set(id, ConfigMaxEntries, ConfigInt, 0); code != CodeSuccess {
			t.Errorf("kind %d: set after a removal: %d", kind, code)
		}
		if !c.Free(id) || c.Free(id) {
			t.Errorf("kind %d: Free twice did not say true, false", kind)
		}
		if code := c.Set(id, 0, ConfigInt, 0); code != want[1] {
			t.Errorf("kind %d: set on a freed id: %d, want %d", kind, code, want[1])
		}
		if _, code := c.Get(id, 0); code != want[1] {
			t.Errorf("kind %d: get on a freed id: %d, want %d", kind, code, want[1])
		}
		if code := c.Remove(id, 0, ConfigInt); code != want[1] {
			t.Errorf("kind %d: remove on a freed id: %d, want %d", kind, code, want[1])
		}
		if intAt(c, id, 0, 42) != 42 {
			t.Errorf("kind %d: Int on a freed id is not the default", kind)
		}
		if c.Len() != 0 {
			t.Errorf("kind %d: %d live after free", kind, c.Len())
		}
	}
}

func TestConfigIDsAreDistinctAndNotReused(t *testing.T) {
	c := NewConfigs(SchedConfig)
	a := c.New()
	c.Free(a)
	b := c.New()
	if a == b || a == 0 || b == 0 {
		t.Errorf("ids %d then %d", a, b)
	}
	c.last = math.MaxInt32 // the counter wraps and skips the ids still live
	d := c.New()
	if d <= 0 || d == b {
		t.Errorf("after the wrap: %d (live: %d)", d, b)
	}
}

func TestConfigsConcurrent(t *testing.T) {
	c := NewConfigs(SchedConfig)
	shared := c.New()
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				id := c.New()
				c.Set(id, int32(i%10), ConfigInt, uint64(g))
				c.Set(shared, int32(g), ConfigInt, uint64(i))
				c.Get(shared, int32((g+1)%8))
				intAt(c, id, int32(i%10), 0)
				c.Free(id)
			}
		}(g)
	}
	wg.Wait()
	if c.Len() != 1 {
		t.Errorf("%d live, want 1", c.Len())
	}
}
