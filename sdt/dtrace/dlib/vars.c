/*
 * D variables: globals, thread-locals (self->) and associative arrays all
 * live in one hash map, dt_vars, keyed by (variable, key) with a 64-bit
 * value slot each.  The D linker binds the symbol dt_vars to that map.
 * Reading a variable never set gives 0 (dt_var_get returns a pointer to a
 * zero for it without creating it); setting a thread-local or associative
 * element to 0 deletes it, as DTrace frees them.
 */
#include "dlib.h"

extern char dt_vars[];	/* a map handle, bound by the linker */
static const u64 zero;

DT_FN u64 *
dt_var_lookup(u64 id, u64 key)
{
	struct dt_varkey k = { id, key };

	return bpf_map_lookup_elem(dt_vars, &k);
}

DT_FN u64 *
dt_var_get(u64 id, u64 key)
{
	u64 *v = dt_var_lookup(id, key);

	return v ? v : (u64 *)&zero;
}

DT_FN long
dt_var_set(u64 id, u64 key, u64 value)
{
	struct dt_varkey k = { id, key };
	u64 *v;

	if (value == 0 && (id >> 32) != 0)
		return bpf_map_delete_elem(dt_vars, &k);
	/* A variable that exists is written in place: a lookup takes no
	 * lock, an update serialises on the map's. */
	v = bpf_map_lookup_elem(dt_vars, &k);
	if (v) {
		*v = value;
		return 0;
	}
	return bpf_map_update_elem(dt_vars, &k, &value, 0);
}

/*
 * dt_wvars: variables that hold strings, and associative arrays keyed by
 * other than one integer.  The key is built by the clause (the variable's
 * id, then its key components) and is as long as the map's; the value is
 * a string's room, or 8 bytes when no variable holds a string.
 */
extern char dt_wvars[];
static const char zeroes[DT_STRSIZE];

/* A key component: the string s, NUL-padded to DT_STRSIZE bytes. */
DT_FN char *
dt_strpad(char *dst, const char *s)
{
	u64 n = 0;

	while (n < DT_STRSIZE - 1 && s[n] != '\0') {
		dst[n] = s[n];
		n++;
	}
	while (n < DT_STRSIZE) {
		dst[n] = '\0';
		/* Not a memset, which BPF has no instruction for. */
		__asm__ volatile("" : "+r"(n));
		n++;
	}
	return dst;
}

/* The value, or zeroes (0, "") when never set. */
DT_FN char *
dt_wvar_get(const void *key)
{
	char *v = bpf_map_lookup_elem(dt_wvars, key);

	return v ? v : (char *)zeroes;
}

/* The entry for key, made (zeroed) when missing; 0 when the map is full. */
static inline char *
wvar_entry(const void *key, long *err)
{
	char *v = bpf_map_lookup_elem(dt_wvars, key);

	if (v)
		return v;
	*err = bpf_map_update_elem(dt_wvars, key, zeroes, 0);
	if (*err < 0)
		return 0;
	return bpf_map_lookup_elem(dt_wvars, key);
}

/* Store a string; "" frees a thread-local or an element (`dynamic`). */
DT_FN long
dt_wvar_set_str(const void *key, const char *s, u64 dynamic)
{
	long err = -1;
	char *v;
	u64 n = 0;

	if (dynamic && s[0] == '\0')
		return bpf_map_delete_elem(dt_wvars, key);
	v = wvar_entry(key, &err);
	if (!v)
		return err < 0 ? err : -1;
	while (n < DT_STRSIZE - 1 && s[n] != '\0') {
		v[n] = s[n];
		n++;
	}
	v[n] = '\0';
	return 0;
}

/* Store an integer; 0 frees a thread-local or an element (`dynamic`). */
DT_FN long
dt_wvar_set_int(const void *key, u64 value, u64 dynamic)
{
	long err = -1;
	u64 *v;

	if (dynamic && value == 0)
		return bpf_map_delete_elem(dt_wvars, key);
	v = (u64 *)wvar_entry(key, &err);
	if (!v)
		return err < 0 ? err : -1;
	*v = value;
	return 0;
}
