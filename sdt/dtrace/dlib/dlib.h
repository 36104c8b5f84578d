/*
 * The D library: functions of the D language that are easier to write in C
 * than to generate, compiled once at build time with `clang -target bpf -O2`
 * into build/ARCH/dtrace/bpf_dlib.o and linked into each compiled clause
 * that calls them (each function once, with what it calls in turn).
 *
 * Calling convention (the BPF one: arguments in r1..r5, result in r0, r6..r9
 * kept by the callee, 512 bytes of stack per call):
 *
 *  - A string is a pointer to NUL-terminated bytes in memory the clause may
 *    read: the probe context, the clause's scratch space (a per-CPU array
 *    map), a map value, or the constant strings (a read-only array map).
 *    No string is longer than DT_STRSIZE bytes, the NUL included: every
 *    function stops there, terminated or not.
 *  - A function that makes a string writes it to a destination the caller
 *    passes first (`dst`, DT_STRSIZE bytes of scratch space), always
 *    terminates it, and returns `dst`.
 *  - Functions that find something in a string return a pointer into it,
 *    or 0 when there is nothing (D's NULL string).
 *  - Numbers are 64-bit; D's int and long both travel as such.
 *
 * Every function is a global, never inlined into another, so that the
 * linker sees each call as a call and copies in exactly what is reached.
 */
#ifndef DT_DLIB_H
#define DT_DLIB_H

typedef unsigned char u8;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef long long s64;

#define DT_STRSIZE 256
#define DT_FN __attribute__((noinline))

/* Map helpers, by their Linux ids (the engine implements the same ones). */
static void *(*const bpf_map_lookup_elem)(void *map, const void *key) =
    (void *)1;
static long (*const bpf_map_update_elem)(void *map, const void *key,
                                         const void *value, u64 flags) =
    (void *)2;
static long (*const bpf_map_delete_elem)(void *map, const void *key) =
    (void *)3;

/* strings.c */
u64 dt_strlen(const char *s);
s64 dt_strcmp(const char *a, const char *b);
char *dt_strjoin(char *dst, const char *a, const char *b);
char *dt_substr(char *dst, const char *s, s64 index, s64 len);
char *dt_strchr(const char *s, u64 c);
char *dt_strrchr(const char *s, u64 c);
char *dt_strstr(const char *s, const char *sub);
s64 dt_index(const char *s, const char *sub, s64 pos);
s64 dt_rindex(const char *s, const char *sub, s64 pos);
char *dt_strtok(char *dst, const char *s, const char *delim, char *state);
s64 dt_strtoll(const char *s, s64 base);
s64 dt_strchar(const char *s, s64 i);
/* The same, "" for NULL, copied to dst: what D calls. */
char *dt_strchr_d(char *dst, const char *s, u64 c);
char *dt_strrchr_d(char *dst, const char *s, u64 c);
char *dt_strstr_d(char *dst, const char *s, const char *sub);
char *dt_strtok_d(char *dst, const char *s, const char *delim, char *state);
u64 dt_bswap16(u64 v);
u64 dt_bswap32(u64 v);
u64 dt_bswap64(u64 v);
s64 dt_rand(char *state);
char *dt_basename(char *dst, const char *s);
char *dt_dirname(char *dst, const char *s);
char *dt_lltostr(char *dst, s64 v);
char *dt_toupper(char *dst, const char *s);
char *dt_tolower(char *dst, const char *s);
char *dt_inet_ntoa(char *dst, u64 addr);
char *dt_inet_ntoa6(char *dst, u64 lo, u64 hi, u64 strict);

/* agg.c: aggregation buckets. */
#define DT_QUANTIZE_BUCKETS 127
#define DT_LQUANTIZE_MAX_BUCKETS 1002 /* (limit - base) / step + 2, at most */
u64 dt_quantize_bucket(s64 v);
u64 dt_lquantize_bucket(s64 v, s64 base, s64 limit, s64 step);
void dt_quantize_add(u64 *buckets, s64 v, s64 incr);
void dt_lquantize_add(u64 *buckets, s64 v, s64 base, s64 limit, s64 step);

/* vars.c: D variables live in one hash map keyed by (variable, key). */
struct dt_varkey {
	u64 id;  /* the variable: its number, in the top 32 bits its kind */
	u64 key; /* global: 0; thread-local: the thread; associative: the key */
};
u64 *dt_var_lookup(u64 id, u64 key);
u64 *dt_var_get(u64 id, u64 key);
long dt_var_set(u64 id, u64 key, u64 value);
char *dt_strpad(char *dst, const char *s);
char *dt_wvar_get(const void *key);
long dt_wvar_set_str(const void *key, const char *s, u64 dynamic);
long dt_wvar_set_int(const void *key, u64 value, u64 dynamic);

#endif
