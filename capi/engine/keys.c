//go:build goabt_c_engine
/* keys.c: the slow paths of keys.h (work-unit-specific data): the first set of a slot, a unit's
 * first table, growth, and destruction when a unit is freed. The registry of keys and the memory
 * of tables are the Go core's (core.Keys, core.KeyTables); ABT_key_* are in api/key.c. */
#include <stdlib.h>
#include <string.h>
#include "gocalls.h"
#include "keys.h"
#include "unit.h"

/* u's table, made if it has none. Racing creators (the unit itself and set_specific callers on
 * other streams) agree on whichever table lands first. */
static goabt_keytable *keys_table(goabt_unit *u)
{
    goabt_keytable *t = __atomic_load_n(&u->keys, __ATOMIC_ACQUIRE);
    if (t != NULL) return t;
    /* A descriptor from the cache may bring an emptied table along: every racer offers the same
     * one, so none is left over. Otherwise the Go core makes one (the slow path). */
    goabt_keytable *fresh = u->keys_spare;
    int from_go = fresh == NULL;
    if (from_go) fresh = goabt_keytable_get();
    if (fresh == NULL) return NULL;
    if (__atomic_compare_exchange_n(&u->keys, &t, fresh, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        return fresh;
    }
    if (from_go) goabt_keytable_put(fresh);
    return t;
}

/* Chunk k of t, added if missing (ids past the first chunk's). */
static goabt_key_slot *keys_chunk(goabt_keytable *t, uint32_t k)
{
    goabt_key_slot *c = __atomic_load_n(&t->chunks[k], __ATOMIC_ACQUIRE);
    if (c != NULL) return c;
    goabt_key_slot *fresh = goabt_keychunk_get(k);
    if (fresh == NULL) return NULL;
    if (__atomic_compare_exchange_n(&t->chunks[k], &c, fresh, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
        return fresh;
    }
    goabt_keychunk_put(k, fresh);
    return c;
}

/* Keeps a value a freed key left behind until the unit is freed. Without memory for the note
 * the value is destroyed now: earlier than Argobots would, but not lost. */
static void keys_orphan(goabt_keytable *t, void *value, void (*destructor)(void *))
{
    goabt_key_orphan *o = malloc(sizeof *o);
    if (o == NULL) {
        destructor(value);
        return;
    }
    o->destructor = destructor;
    o->value = value;
    o->next = __atomic_load_n(&t->orphans, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(&t->orphans, &o->next, o, 1, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED)) {
    }
}

int goabt_keys_insert(goabt_unit *u, const goabt_key *k, void *value)
{
    goabt_keytable *t = keys_table(u);
    goabt_key_slot *c = t != NULL ? keys_chunk(t, k->chunk) : NULL;
    if (c == NULL) return ABT_ERR_MEM;
    goabt_key_slot *s = &c[k->offset];
    /* Claim the slot: whoever swaps its serial to BUSY fills it; the others wait a few
     * instructions for the new serial and then store like any later set. */
    uint64_t seen = __atomic_load_n(&s->serial, __ATOMIC_ACQUIRE);
    unsigned spins = 0;
    for (;;) {
        if (seen == k->serial) {
            __atomic_store_n(&s->value, value, __ATOMIC_RELEASE);
            return ABT_SUCCESS;
        }
        if (seen == GOABT_KEY_SLOT_BUSY) {
            goabt_backoff(spins++); /* the claimer is a few stores from done */
            seen = __atomic_load_n(&s->serial, __ATOMIC_ACQUIRE);
            continue;
        }
        if (__atomic_compare_exchange_n(&s->serial, &seen, GOABT_KEY_SLOT_BUSY, 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            break;
        }
    }
    /* `seen` is 0 (never filled) or a freed key's serial that left its value here. */
    void *old = __atomic_load_n(&s->value, __ATOMIC_RELAXED);
    void (*old_destructor)(void *) = s->destructor;
    s->destructor = k->destructor;
    __atomic_store_n(&s->value, value, __ATOMIC_RELAXED);
    __atomic_store_n(&s->serial, k->serial, __ATOMIC_RELEASE); /* publishes the two above */
    /* The freed key's value is destroyed when the unit is freed, as in Argobots, whose tables
     * keep every key ever set: the unit may still be using it. */
    if (seen != 0 && old != NULL && old_destructor != NULL) keys_orphan(t, old, old_destructor);
    return ABT_SUCCESS;
}

/* Destructor rounds when freeing a unit, as POSIX does for thread keys
 * (PTHREAD_DESTRUCTOR_ITERATIONS): a destructor may set values on the unit being freed. */
#define KEYS_DESTROY_ROUNDS 4

void goabt_keys_destroy_table(goabt_unit *u, goabt_keytable *t)
{
    /* Argobots order: the value is cleared, then the destructor runs. Keys freed meanwhile are
     * included, and so are the values they left behind (orphans). */
    for (int round = 0, more = 1; more && round < KEYS_DESTROY_ROUNDS; round++) {
        more = 0;
        for (uint32_t k = 0; k < GOABT_KEY_CHUNKS; k++) {
            goabt_key_slot *c = t->chunks[k];
            if (c == NULL) continue;
            for (uint32_t i = 0; i < ((uint32_t)GOABT_KEY_CHUNK0_SLOTS << k); i++) {
                void *v = __atomic_load_n(&c[i].value, __ATOMIC_ACQUIRE);
                if (v != NULL && c[i].destructor != NULL) {
                    __atomic_store_n(&c[i].value, NULL, __ATOMIC_RELAXED);
                    c[i].destructor(v);
                    more = 1;
                }
            }
        }
        goabt_key_orphan *o = __atomic_exchange_n(&t->orphans, NULL, __ATOMIC_ACQUIRE);
        while (o != NULL) {
            goabt_key_orphan *next = o->next;
            o->destructor(o->value);
            free(o);
            o = next;
            more = 1;
        }
    }
    __atomic_store_n(&u->keys, NULL, __ATOMIC_RELEASE);
    for (uint32_t k = 1; k < GOABT_KEY_CHUNKS; k++) {
        if (t->chunks[k] != NULL) goabt_keychunk_put(k, t->chunks[k]);
        t->chunks[k] = NULL;
    }
    memset(t->first, 0, sizeof t->first);
    /* The emptied table stays with the descriptor for its next unit (keys_table). */
    u->keys_spare = t;
}

void goabt_keys_release_spare(goabt_unit *u)
{
    if (u->keys_spare != NULL) goabt_keytable_put(u->keys_spare);
    u->keys_spare = NULL;
}
