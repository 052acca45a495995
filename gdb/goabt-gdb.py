"""goabt's gdb commands: see every ULT of a goabt program, live or in a core file.

    goabt ults          every work unit not finished: id, kind, state, what it waits on, the
                        function it was created with, its pool and stream
    goabt ult ID bt     the backtrace of a parked ULT (ID: its id, or its descriptor's address)
    goabt streams       the execution streams and what each runs

gdb loads this file by itself beside libgoabt.so when it is installed where gdb's auto-load
looks (make install puts it in <prefix>/share/gdb/auto-load/<libdir>/libgoabt.so.<version>-gdb.py,
named after the library's real file, which gdb looks it up by), or
by `source <path>/goabt-gdb.py`. It needs libgoabt.so's debug information (the release build
has it: -g) and the Go core's (libgoabt-go.so: Go writes it by default). It reads memory only.

How it finds the units: the Go core keeps the unit descriptors' memory in slabs
(core.Runtime.Units, the Go variable main.rt); a descriptor whose magic is the runtime's
(goabt_rt.unit_magic) and whose state is not TERMINATED is a live unit. A parked ULT's saved
context (capi/engine/context_amd64.S) is its stack pointer; the resume address sits 56 bytes
above it, the caller's stack 64 bytes above."""

import gdb

STATES = {0: "READY", 1: "RUNNING", 2: "BLOCKED", 3: "TERMINATED"}
WAITS = {0: "unknown wait", 1: "user", 2: "pool pop", 3: "join of execution stream",
         4: "join of work unit", 5: "mutex", 6: "condition variable", 7: "readers-writer lock",
         8: "eventual", 9: "future", 10: "barrier"}
ULT, TASKLET = 1, 2
FLAG_MAIN = 0x2
FRAME_RESUME, FRAME_SIZE = 56, 64


def _ptr_type():
    return gdb.lookup_type("void").pointer()


def _symbol(addr):
    if addr == 0:
        return "(nil)"
    try:
        out = gdb.execute("info symbol %#x" % addr, to_string=True).strip()
    except gdb.error:
        return "%#x" % addr
    if out.startswith("No symbol"):
        return "%#x" % addr
    name = out.split(" in section ")[0]
    lib = out.split(" of ")[-1].rsplit("/", 1)[-1] if " of " in out else ""
    return "%s (%#x%s)" % (name, addr, ", " + lib if lib else "")


def _units():
    """Every live unit, as a gdb value of type struct ABT_thread_opaque *."""
    unit_type = gdb.lookup_type("struct ABT_thread_opaque")
    size = (unit_type.sizeof + 63) & ~63
    magic = int(gdb.parse_and_eval("goabt_rt.unit_magic"))
    try:
        slabs = gdb.parse_and_eval("'main.rt'")["Units"]["slabs"]
    except gdb.error as e:
        raise gdb.GdbError("goabt: the Go core's unit memory is not readable (is libgoabt-go.so "
                           "loaded, with its debug information?): %s" % e)
    magic_off = unit_type["magic"].bitpos // 8
    state_off = unit_type["state"].bitpos // 8
    inferior = gdb.selected_inferior()
    out = []
    for i in range(int(slabs["len"])):
        slab = slabs["array"][i]
        base, length = int(slab["array"]), int(slab["len"])
        if base == 0:
            continue
        mem = bytes(inferior.read_memory(base, length))
        for off in range(0, length - size + 1, size):
            m = int.from_bytes(mem[off + magic_off:off + magic_off + 4], "little")
            st = int.from_bytes(mem[off + state_off:off + state_off + 4], "little")
            if m == magic and st != 3:
                out.append(gdb.Value(base + off).cast(unit_type.pointer()))
    return out


def _id(u):
    uid = int(u["id"])
    return str(uid - 1) if uid else "?"


def _wait(u):
    state = int(u["state"])
    if state == 2 and int(u["suspend"]) != 0:
        return "suspend"
    w = u["waiting"]
    if int(w) == 0 or (state != 2 and int(u["kind"]) != TASKLET):
        return ""
    what = WAITS.get(int(w["sync_type"]), "wait")
    s = "%s %#x" % (what, int(w["sync"])) if int(w["sync"]) else what
    if int(w["deadline"]):
        s += " (timed)"
    return s


def _describe(u):
    kind = "tasklet" if int(u["kind"]) == TASKLET else ("main ULT" if int(u["flags"]) & FLAG_MAIN else "ULT")
    func = "main" if int(u["flags"]) & FLAG_MAIN else _symbol(int(u["func"]))
    stream = u["last_stream"]
    where = "stream %d" % int(stream["rank"]) if int(stream) else "not run yet"
    pool = u["pool"]
    if int(pool):
        where = "pool %d, %s" % (int(pool["id"]), where)
    return kind, func, where


class GoabtCommand(gdb.Command):
    """goabt's commands: goabt ults, goabt ult ID bt, goabt streams."""

    def __init__(self):
        super().__init__("goabt", gdb.COMMAND_DATA, gdb.COMPLETE_NONE, True)


class GoabtUlts(gdb.Command):
    """List every work unit not finished: id (? until the program asked for it), address, kind,
state and what it waits on, function, pool and stream."""

    def __init__(self):
        super().__init__("goabt ults", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        units = _units()
        print("%d work units not finished" % len(units))
        for u in units:
            kind, func, where = _describe(u)
            state = STATES.get(int(u["state"]), str(int(u["state"])))
            wait = _wait(u)
            if wait:
                state += ", waiting on " + wait
            print("  %-8s %-3s %#x [%s] %s; %s" % (kind, _id(u), int(u), state, func, where))


class GoabtUlt(gdb.Command):
    """goabt ult ID bt: the backtrace of a parked ULT, by its id or its address (goabt ults)."""

    def __init__(self):
        super().__init__("goabt ult", gdb.COMMAND_STACK)

    def invoke(self, arg, from_tty):
        args = arg.split()
        if len(args) != 2 or args[1] != "bt":
            raise gdb.GdbError("usage: goabt ult ID bt")
        key = args[0]
        target = None
        for u in _units():
            if key == _id(u) or (key.startswith("0x") and int(key, 16) == int(u)):
                target = u
        if target is None:
            raise gdb.GdbError("goabt: no live unit %s (goabt ults lists them)" % key)
        if int(target["kind"]) != ULT or int(target["flags"]) & FLAG_MAIN:
            raise gdb.GdbError("goabt: unit %s runs on a stream's stack (a tasklet or the main "
                               "ULT): its thread's backtrace is gdb's own bt" % key)
        if int(target["state"]) == 1:
            raise gdb.GdbError("goabt: ULT %s is running: its stream's thread shows it (info threads)" % key)
        sp = int(target["ctx"])
        if sp == 0:
            print("ULT %s has not run yet: it starts in %s" % (key, _symbol(int(target["func"]))))
            return
        inferior = gdb.selected_inferior()

        def word(off):
            return int.from_bytes(bytes(inferior.read_memory(sp + off, 8)), "little")

        # The registers as the ULT's switch saved them (context_amd64.S): its frame becomes the
        # selected thread's for the backtrace, then the thread gets its own back. A core file's
        # registers cannot be written: there the code addresses on the stack stand in.
        saved = {r: int(gdb.parse_and_eval("$" + r)) for r in ("rsp", "rip", "rbp", "rbx", "r12", "r13", "r14", "r15")}
        regs = {"r15": word(8), "r14": word(16), "r13": word(24), "r12": word(32), "rbx": word(40),
                "rbp": word(48), "rip": word(FRAME_RESUME), "rsp": sp + FRAME_SIZE}
        try:
            for r, v in regs.items():
                gdb.execute("set $%s = %#x" % (r, v), to_string=True)
        except gdb.error:
            print("ULT %s (its registers cannot be set here: a core file); code addresses on its stack, newest first:" % key)
            top = int(target["stack"]) + int(target["stacksize"])
            for off in range(0, min(top - sp, 32 * 1024), 8):
                w = word(off)
                out = gdb.execute("info symbol %#x" % w, to_string=True)
                if not out.startswith("No symbol") and " .text " in out:
                    print("  sp+%#x: %s" % (off, _symbol(w)))
            return
        try:
            print(gdb.execute("bt", to_string=True), end="")
        finally:
            for r, v in saved.items():
                gdb.execute("set $%s = %#x" % (r, v), to_string=True)


class GoabtStreams(gdb.Command):
    """List the execution streams: rank, primary or not, and the unit each runs."""

    def __init__(self):
        super().__init__("goabt streams", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        units = {int(u): u for u in _units()}
        seen = 0
        streams = {}
        for u in units.values():
            s = u["last_stream"]
            if int(s):
                streams[int(s)] = s
        primary = gdb.parse_and_eval("goabt_rt.primary")
        if int(primary):
            streams[int(primary)] = primary
        for addr, s in sorted(streams.items(), key=lambda kv: int(kv[1]["rank"])):
            cur = s["current"]
            if int(cur):
                kind = "tasklet" if int(cur["kind"]) == TASKLET else "ULT"
                what = "%s %s (%#x)" % (kind, _id(cur), int(cur))
            else:
                what = "its scheduler (no unit)"
            print("  stream %d%s %#x: running %s" % (int(s["rank"]), " (primary)" if int(s["is_primary"]) else "",
                                                     addr, what))
            seen += 1
        if seen == 0:
            print("no execution stream (goabt is not initialized)")


GoabtCommand()
GoabtUlts()
GoabtUlt()
GoabtStreams()
