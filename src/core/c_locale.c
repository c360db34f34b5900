/* c_locale.c: the C locale for numbers (see c_locale.h). */
#include <pthread.h>

#include "core/c_locale.h"

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void make_c_locale(void)
{
    c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

locale_t rs_c_locale_enter(void)
{
    pthread_once(&c_locale_once, make_c_locale);
    return c_locale ? uselocale(c_locale) : (locale_t)0;
}

void rs_c_locale_leave(locale_t previous)
{
    if (previous)
        uselocale(previous);
}
