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
