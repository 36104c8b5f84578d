/*
 * memdev: a tiny in-memory device driven from the shell.  It registers the
 * shell command `memdev` (SHELL_COMMAND), which lives exactly as long as the
 * module: `help` lists it while memdev is loaded and it is gone after
 * kldunload.  The device's contents live in malloc'd memory that grows on
 * demand and is freed at unload, so the kernel's accounting returns to where
 * it was.  Each operation is its own (never inlined) function, so a probe's
 * function field names the operation, and fires probes of the
 * memdev provider: write-start/write-done (data, length / length, error),
 * read (bytes), grow (old and new capacity), clear (bytes dropped), stat.
 *
 *   dtrace -n 'memdev:::write-done { @bytes = sum(arg0); }' \
 *       -c 'memdev write hello; memdev write world'
 */
#include <sys/kernel.h>
#include <sys/sdt.h>

SDT_PROVIDER_DEFINE(memdev);
SDT_PROBE_DEFINE2(memdev, , write, write__start, "char *", "size_t");
SDT_PROBE_DEFINE2(memdev, , write, write__done, "size_t", "int");
SDT_PROBE_DEFINE2(memdev, , write, grow, "size_t", "size_t");
SDT_PROBE_DEFINE1(memdev, , read, read, "size_t");
SDT_PROBE_DEFINE1(memdev, , clear, clear, "size_t");
SDT_PROBE_DEFINE2(memdev, , stat, stat, "size_t", "size_t");

#define MEMDEV_MAX_DEFAULT (64 * 1024)

struct memdev_softc {
	struct mtx	sc_mtx;
	char		*sc_buf;	/* contents, not NUL-terminated */
	size_t		sc_len;		/* bytes stored */
	size_t		sc_cap;		/* bytes allocated */
	int		sc_writes;
	int		sc_reads;
};

static struct memdev_softc memdev_sc;
static int memdev_max = MEMDEV_MAX_DEFAULT;

SYSCTL_INT("memdev.max_bytes", CTLFLAG_RW, &memdev_max,
    "Most bytes the device holds; a write beyond it fails");

/* Append `len` bytes; 0 or an errno value. */
static __attribute__((noinline)) int
memdev_write(struct memdev_softc *sc, const char *data, size_t len)
{
	size_t need, cap;
	char *nbuf;
	int error = 0, max;

	SDT_PROBE2(memdev, , write, write__start, data, len);
	mtx_lock(&sc->sc_mtx);
	need = sc->sc_len + len;
	max = __atomic_load_n(&memdev_max, __ATOMIC_RELAXED);
	if (max < 0 || need > (size_t)max) {
		error = ENOSPC;
		goto out;
	}
	if (need > sc->sc_cap) {
		cap = sc->sc_cap ? sc->sc_cap : 16;
		while (cap < need)
			cap *= 2;
		nbuf = realloc(sc->sc_buf, cap);
		if (nbuf == NULL) {
			error = ENOMEM;
			goto out;
		}
		SDT_PROBE2(memdev, , write, grow, sc->sc_cap, cap);
		sc->sc_buf = nbuf;
		sc->sc_cap = cap;
	}
	memcpy(sc->sc_buf + sc->sc_len, data, len);
	sc->sc_len = need;
	sc->sc_writes++;
out:
	mtx_unlock(&sc->sc_mtx);
	SDT_PROBE2(memdev, , write, write__done, len, error);
	return error;
}

/* Print the contents (the lines written so far). */
static __attribute__((noinline)) void
memdev_read(struct memdev_softc *sc)
{
	mtx_lock(&sc->sc_mtx);
	SDT_PROBE1(memdev, , read, read, sc->sc_len);
	sc->sc_reads++;
	if (sc->sc_len > 0)
		printf("%.*s", (int)sc->sc_len, sc->sc_buf);
	mtx_unlock(&sc->sc_mtx);
}

/* Print sizes and counters. */
static __attribute__((noinline)) void
memdev_stat(struct memdev_softc *sc)
{
	mtx_lock(&sc->sc_mtx);
	SDT_PROBE2(memdev, , stat, stat, sc->sc_len, sc->sc_cap);
	printf("memdev: %zu bytes stored, %zu allocated, %d writes, %d reads\n",
	    sc->sc_len, sc->sc_cap, sc->sc_writes, sc->sc_reads);
	mtx_unlock(&sc->sc_mtx);
}

/* Drop the contents and give the memory back. */
static __attribute__((noinline)) void
memdev_clear(struct memdev_softc *sc)
{
	mtx_lock(&sc->sc_mtx);
	SDT_PROBE1(memdev, , clear, clear, sc->sc_len);
	free(sc->sc_buf);
	sc->sc_buf = NULL;
	sc->sc_len = sc->sc_cap = 0;
	mtx_unlock(&sc->sc_mtx);
}

static int
memdev_usage(void)
{
	printf("memdev: usage: memdev write TEXT | read | stat | clear\n");
	return 1;
}

/*
 * The words of argv[first..argc) joined by single spaces and ended with a
 * newline: one line for the device.  malloc'd; *lenp excludes the NUL.
 */
static char *
memdev_join(int argc, char **argv, int first, size_t *lenp)
{
	size_t len = 0;
	char *text;
	int i;

	for (i = first; i < argc; i++)
		len += strlen(argv[i]) + 1;
	len++;
	text = malloc(len);
	if (text == NULL)
		return NULL;
	text[0] = '\0';
	for (i = first; i < argc; i++) {
		if (i > first)
			strlcat(text, " ", len);
		strlcat(text, argv[i], len);
	}
	strlcat(text, "\n", len);
	*lenp = len - 1;
	return text;
}

/* The shell command: `memdev write TEXT ...`, `read`, `stat`, `clear`. */
static int
memdev_cmd(int argc, char **argv)
{
	size_t len;
	char *text;
	int error;

	if (argc < 2)
		return memdev_usage();
	if (strcmp(argv[1], "write") == 0) {
		if (argc < 3)
			return memdev_usage();
		text = memdev_join(argc, argv, 2, &len);
		error = text != NULL ? memdev_write(&memdev_sc, text, len) :
		    ENOMEM;
		free(text);
		if (error != 0) {
			printf("memdev: write: %s\n", error == ENOSPC ?
			    "device full" : "out of memory");
			return 1;
		}
		return 0;
	}
	if (argc != 2)
		return memdev_usage();
	if (strcmp(argv[1], "read") == 0)
		memdev_read(&memdev_sc);
	else if (strcmp(argv[1], "stat") == 0)
		memdev_stat(&memdev_sc);
	else if (strcmp(argv[1], "clear") == 0)
		memdev_clear(&memdev_sc);
	else
		return memdev_usage();
	return 0;
}

SHELL_COMMAND(memdev, memdev_cmd, "memdev write TEXT | read | stat | clear",
    "a tiny in-memory device (module memdev)");

static int
memdev_modevent(module_t mod, int what, void *arg)
{
	switch (what) {
	case MOD_LOAD:
		mtx_init(&memdev_sc.sc_mtx, "memdev");
		return 0;
	case MOD_UNLOAD:
		memdev_clear(&memdev_sc);
		mtx_destroy(&memdev_sc.sc_mtx);
		return 0;
	default:
		return 0;
	}
}

DECLARE_MODULE(memdev, memdev_modevent);
MODULE_VERSION(memdev, 1);
MODULE_DESCRIPTION("A tiny in-memory device with a shell command");
MODULE_AUTHOR("minikern");
MODULE_LICENSE("BSD-2-Clause");
