/* keys.h: work-unit-specific data (ABT_key) on the C side: the layout of keys and key tables,
 * which core/keys.go defines (capi/key.go checks at compile time that the two agree), and the
 * hot paths over it.
 *
 * A unit's `keys` points to its table, or is NULL until something is first set for it. Key id i
 * has a fixed slot in every table (chunk `chunk`, index `offset`); chunk 0 is inside the table,
 * later chunks are added (never moved) when a key with a larger id is first set. So:
 *   - get, and set of a slot the key already fills, are plain loads and stores: no Go call, no
 *     atomic read-modify-write (docs/design.md rule 9);
 *   - the first set of a slot claims it with one compare-and-swap on its serial, so set_specific
 *     calls racing from several streams on one unit all land, and at most one of them evicts a
 *     freed key's old value (goabt_keys_insert, keys.c);
 *   - a missing table or chunk comes from the Go core (core.KeyTables) and is published with a
 *     compare-and-swap: racing creators keep the winner's and give theirs back.
 * A slot names the key that filled it by serial, so a freed id that a newer key reuses reads as
 * unset; it keeps that key's destructor, which runs when the unit is freed even if the key was
 * freed first, as Argobots documents. When a newer key takes over such a slot, the old value
 * and its destructor move to the table's orphans, still destroyed only when the unit is freed. */
#ifndef GOABT_KEYS_H
#define GOABT_KEYS_H

#include "common.h"
#include "unit.h"

#define GOABT_KEY_CHUNK0_SLOTS 16 /* core.KeyChunk0Slots */
#define GOABT_KEY_CHUNKS 13       /* core.KeyChunks */
/* core.KeyMagic, "KEY ": the one magic defined outside handles.h, beside the layout core
 * defines (capi/key.go checks it, and includes this header alone). */
#define GOABT_MAGIC_KEY 0x4b455920

/* Marks a slot whose serial is being replaced (serials count up from 1 and never get here). */
#define GOABT_KEY_SLOT_BUSY UINT64_MAX

/* core.KeyRecord: what an ABT_key points to. */
struct ABT_key_opaque {
    uint32_t id;
    uint32_t magic; /* GOABT_MAGIC_KEY while the key lives (atomic) */
    uint64_t serial;
    void (*destructor)(void *);
    uint32_t chunk; /* where id's slot is in every table */
    uint32_t offset;
};
typedef struct ABT_key_opaque goabt_key;

/* core.KeySlot. */
typedef struct goabt_key_slot {
    uint64_t serial;            /* the key that filled it; 0 none; BUSY while claimed (atomic) */
    void (*destructor)(void *); /* that key's destructor */
    void *value;                /* atomic */
} goabt_key_slot;

/* A value a freed key left in a slot that a newer key took over: kept, with its destructor,
 * until the unit is freed (C memory, malloc'd: the path is rare). */
typedef struct goabt_key_orphan {
    struct goabt_key_orphan *next;
    void (*destructor)(void *);
    void *value;
} goabt_key_orphan;

/* core.KeyTable. */
struct goabt_keytable {
    goabt_key_slot first[GOABT_KEY_CHUNK0_SLOTS]; /* chunk 0, at the start: one line less */
    goabt_key_slot *chunks[GOABT_KEY_CHUNKS]; /* chunk k holds 16<<k slots; chunks[0] == first */
    goabt_key_orphan *orphans;                /* pushed with a CAS, taken when the unit is freed */
};

/* k's slot in u's table, or NULL if u has no table or not that chunk yet. */
static inline goabt_key_slot *goabt_keys_slot(goabt_unit *u, const goabt_key *k)
{
    goabt_keytable *t = __atomic_load_n(&u->keys, __ATOMIC_ACQUIRE);
    if (t == NULL) return NULL;
    if (k->chunk == 0) return &t->first[k->offset]; /* most programs have under 16 keys */
    goabt_key_slot *c = __atomic_load_n(&t->chunks[k->chunk], __ATOMIC_ACQUIRE);
    return c != NULL ? &c[k->offset] : NULL;
}

/* u's value for k; NULL if none was set. */
static inline void *goabt_keys_get(goabt_unit *u, const goabt_key *k)
{
    goabt_key_slot *s = goabt_keys_slot(u, k);
    if (s == NULL || __atomic_load_n(&s->serial, __ATOMIC_ACQUIRE) != k->serial) return NULL;
    return __atomic_load_n(&s->value, __ATOMIC_ACQUIRE);
}

/* Runs the destructors of u's values and empties its table (when u is freed). Inline for the
 * common unit that never had a value. */
void goabt_keys_destroy_table(goabt_unit *u, goabt_keytable *t) GOABT_HIDDEN;
static inline void goabt_keys_destroy(goabt_unit *u)
{
    goabt_keytable *t = __atomic_load_n(&u->keys, __ATOMIC_ACQUIRE);
    if (t != NULL) goabt_keys_destroy_table(u, t);
}
/* Gives the table kept with a descriptor back to the Go core (when the descriptor goes). */
void goabt_keys_release_spare(goabt_unit *u) GOABT_HIDDEN;

/* Slow path of goabt_keys_set: the slot, its chunk or the table is missing (keys.c). */
int goabt_keys_insert(goabt_unit *u, const goabt_key *k, void *value) GOABT_HIDDEN;

/* Sets u's value for k; ABT_ERR_MEM if a table or chunk could not be had. */
static inline int goabt_keys_set(goabt_unit *u, const goabt_key *k, void *value)
{
    goabt_key_slot *s = goabt_keys_slot(u, k);
    if (s != NULL && __atomic_load_n(&s->serial, __ATOMIC_ACQUIRE) == k->serial) {
        __atomic_store_n(&s->value, value, __ATOMIC_RELEASE);
        return ABT_SUCCESS;
    }
    return goabt_keys_insert(u, k, value);
}

#endif /* GOABT_KEYS_H */
