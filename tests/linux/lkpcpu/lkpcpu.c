// Per-CPU variables of a Linux module's own (.data..percpu): counted with
// this_cpu_inc() by work items on the kernel's CPU threads (each sleeps a
// little, so that the queue's work spreads over its runners and their
// CPUs) and by init on the shell's, then read back with per_cpu() over every possible CPU.
// Each CPU's count must be exactly the rounds of the work it ran, and
// each CPU's copy of an initialised variable starts as the module wrote
// it (a number, and a pointer relocated to the module's own string).
// Parameter `sum` reads the counts again; `hits` is exported per-CPU.
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#define LKPCPU_WORKS 8

static int rounds = 1000;
module_param(rounds, int, 0444);

DEFINE_PER_CPU(unsigned long, lkpcpu_hits);
EXPORT_PER_CPU_SYMBOL_GPL(lkpcpu_hits);
static DEFINE_PER_CPU(int, lkpcpu_seed) = 42;
static DEFINE_PER_CPU(const char *, lkpcpu_tag) = "lkpcpu tag";

struct lkpcpu_work {
	struct work_struct work;
	int cpu;
};
static struct lkpcpu_work works[LKPCPU_WORKS];

static void lkpcpu_count(struct work_struct *w)
{
	struct lkpcpu_work *lw = container_of(w, struct lkpcpu_work, work);
	int i;

	lw->cpu = raw_smp_processor_id();
	for (i = 0; i < rounds; i++)
		this_cpu_inc(lkpcpu_hits);
	this_cpu_add(lkpcpu_seed, 1);
	msleep(10);
}

static unsigned long lkpcpu_sum(void)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(lkpcpu_hits, cpu);
	return sum;
}

static int sum_get(char *buf, const struct kernel_param *kp)
{
	return sprintf(buf, "%lu\n", lkpcpu_sum());
}

static const struct kernel_param_ops sum_ops = {
	.get = sum_get,
};
module_param_cb(sum, &sum_ops, NULL, 0444);

static int __init lkpcpu_init(void)
{
	int cpu, i, possible = 0, fresh = 0, ran_on = 0, wrong = 0, seeds = 0;
	int self = raw_smp_processor_id();
	struct workqueue_struct *wq = alloc_workqueue("lkpcpu", 0, 0);

	if (!wq)
		return -ENOMEM;

	for_each_possible_cpu(cpu) {
		possible++;
		if (per_cpu(lkpcpu_hits, cpu) == 0 &&
		    per_cpu(lkpcpu_seed, cpu) == 42 &&
		    !strcmp(per_cpu(lkpcpu_tag, cpu), "lkpcpu tag"))
			fresh++;
	}
	this_cpu_inc(lkpcpu_hits);
	for (i = 0; i < LKPCPU_WORKS; i++) {
		INIT_WORK(&works[i].work, lkpcpu_count);
		works[i].cpu = -1;
		queue_work(wq, &works[i].work);
	}
	for (i = 0; i < LKPCPU_WORKS; i++)
		flush_work(&works[i].work);
	destroy_workqueue(wq);
	for_each_possible_cpu(cpu) {
		unsigned long want = cpu == self ? 1 : 0;
		int ran = 0;

		for (i = 0; i < LKPCPU_WORKS; i++)
			if (works[i].cpu == cpu)
				ran++;
		want += (unsigned long)ran * rounds;
		if (per_cpu(lkpcpu_hits, cpu) != want)
			wrong++;
		if (per_cpu(lkpcpu_seed, cpu) == 42 + ran)
			seeds++;
		if (ran)
			ran_on++;
	}
	pr_info("lkpcpu: %d possible CPUs, %d with fresh copies\n", possible,
		fresh);
	pr_info("lkpcpu: %d works x %d rounds and 1 from init: sum %lu, "
		"%d CPUs disagree, %d seeds right\n", LKPCPU_WORKS, rounds,
		lkpcpu_sum(), wrong, seeds);
	pr_info("lkpcpu: the works ran on %d CPUs; this_cpu_ptr %s per_cpu_ptr\n",
		ran_on, this_cpu_ptr(&lkpcpu_hits) ==
		per_cpu_ptr(&lkpcpu_hits, raw_smp_processor_id()) ? "==" : "!=");
	return 0;
}

static void __exit lkpcpu_exit(void)
{
}

module_init(lkpcpu_init);
module_exit(lkpcpu_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("per-CPU variables of a module's own");
