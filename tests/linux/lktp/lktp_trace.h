/* The module's TRACE_EVENT: one tracepoint, lktp_step(i, what). */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM lktp

#if !defined(_LKTP_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _LKTP_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(lktp_step,
	TP_PROTO(int i, const char *what),
	TP_ARGS(i, what),
	TP_STRUCT__entry(
		__field(int, i)
		__string(what, what)
	),
	TP_fast_assign(
		__entry->i = i;
		__assign_str(what, what);
	),
	TP_printk("i=%d what=%s", __entry->i, __get_str(what))
);

#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE lktp_trace
#include <trace/define_trace.h>
