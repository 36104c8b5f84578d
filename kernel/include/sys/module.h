/*
 * Module metadata and lifecycle (FreeBSD's model).
 *
 *   static int hello_modevent(module_t mod, int what, void *arg);
 *   DECLARE_MODULE(hello, hello_modevent);
 *   MODULE_VERSION(hello, 1);
 *   MODULE_DEPEND(hello, libfoo, 1, 2, 3);   // needs libfoo version 1..3
 *   MODULE_DESCRIPTION("says hello");
 *   MODULE_AUTHOR("..."); MODULE_LICENSE("BSD");
 *
 * Each macro writes a record into the module's `modmetadata_set` linker set,
 * read after linking, and a "key=value" string into the `.modinfo` section,
 * read from the file without linking (by `modinfo`, and by the loader to find
 * dependencies before it resolves anything).
 */
#ifndef _SYS_MODULE_H_
#define _SYS_MODULE_H_

#include <sys/errno.h>
#include <sys/linker_set.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum modeventtype {
	MOD_LOAD,
	MOD_UNLOAD,
	MOD_SHUTDOWN,
	MOD_QUIESCE
} modeventtype_t;

typedef struct module *module_t;
typedef int (*modeventhand_t)(module_t mod, int what, void *arg);

typedef struct moduledata {
	const char *name;
	modeventhand_t evhand;
	void *priv;
} moduledata_t;

struct mod_depend {
	int md_ver_minimum;
	int md_ver_preferred;
	int md_ver_maximum;
};

struct mod_version {
	int mv_version;
};

#define MDT_MODULE 1
#define MDT_DEPEND 2
#define MDT_VERSION 3

struct mod_metadata {
	int md_version;       /* MDT_STRUCT_VERSION */
	int md_type;          /* MDT_* */
	const void *md_data;  /* moduledata_t, mod_depend or mod_version */
	const char *md_cval;  /* module name (MDT_MODULE, MDT_VERSION) or dependency name */
};
#define MDT_STRUCT_VERSION 1

/* A "key=value" string in .modinfo, unaligned so strings pack end to end. */
#define __MODINFO(tag, text)                                                   \
	static const char __MK_CONCAT(__modinfo_##tag##_, __LINE__)[]          \
	    __attribute__((section(".modinfo"), used, aligned(1))) = text

#define __MODULE_METADATA(uniq, type, data, cval)                              \
	static struct mod_metadata _mod_metadata##uniq = {                     \
		MDT_STRUCT_VERSION, type, data, cval };                        \
	DATA_SET(modmetadata_set, _mod_metadata##uniq)

#define DECLARE_MODULE(name, evhand)                                           \
	static moduledata_t name##_moduledata = { #name, evhand, 0 };          \
	__MODULE_METADATA(_md_##name, MDT_MODULE, &name##_moduledata, #name);  \
	__MODINFO(name, "name=" #name)

#define MODULE_VERSION(module, version)                                        \
	static struct mod_version _##module##_version = { version };           \
	__MODULE_METADATA(_##module##_version, MDT_VERSION,                    \
	    &_##module##_version, #module);                                    \
	__MODINFO(version, "version=" __MK_STRING(version))

#define MODULE_DEPEND(module, mdepend, vmin, vpref, vmax)                      \
	static struct mod_depend _##module##_depend_on_##mdepend = {           \
		vmin, vpref, vmax };                                           \
	__MODULE_METADATA(_md_##module##_on_##mdepend, MDT_DEPEND,             \
	    &_##module##_depend_on_##mdepend, #mdepend);                       \
	__MODINFO(depend, "depend=" #mdepend ":" __MK_STRING(vmin) ":"        \
	    __MK_STRING(vpref) ":" __MK_STRING(vmax))

#define MODULE_DESCRIPTION(text) __MODINFO(description, "description=" text)
#define MODULE_AUTHOR(text) __MODINFO(author, "author=" text)
#define MODULE_LICENSE(text) __MODINFO(license, "license=" text)

/* The module's name, as given to DECLARE_MODULE. */
const char *module_getname(module_t mod);
/*
 * Hold the module in memory: while any hold is outstanding kldunload refuses
 * with "module busy".  For modules whose objects are in use by others.
 */
void module_hold(module_t mod);
void module_release(module_t mod);

#ifdef __cplusplus
}
#endif
#endif
