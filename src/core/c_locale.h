/*
 * c_locale.h (internal): numbers in the C locale whatever the caller's. Every number relaxsim
 * reads or writes (scenario, sweep, scene, .dat, CSV, JSON, capsules) goes through strtod and
 * printf, which follow LC_NUMERIC: a program that called setlocale(LC_ALL, "de_DE.UTF-8") would
 * write "1,5" and fail to read it back. The functions that parse or format numbers switch the
 * calling thread to the C locale for their duration (uselocale: thread-local, the caller's
 * locale is restored on the way out).
 */
#ifndef RS_CORE_C_LOCALE_H
#define RS_CORE_C_LOCALE_H

#include <locale.h>

/* Switch this thread to the C locale; returns what to give back to rs_c_locale_leave. If the C
 * locale object cannot be made (no memory), the thread's locale is left as it is. */
locale_t rs_c_locale_enter(void);
void rs_c_locale_leave(locale_t previous);

#endif
