/*
 * relaxsim/export.h: symbol visibility.
 *
 * The library is compiled with hidden visibility; only declarations marked RS_API are exported.
 * RS_BUILDING_LIBRARY is defined by the build of the library itself, never by its users.
 */
#ifndef RELAXSIM_EXPORT_H
#define RELAXSIM_EXPORT_H

#if defined(_WIN32)
#  if defined(RS_BUILDING_LIBRARY)
#    define RS_API __declspec(dllexport)
#  else
#    define RS_API
#  endif
#elif defined(__GNUC__) && __GNUC__ >= 4
#  define RS_API __attribute__((visibility("default")))
#else
#  define RS_API
#endif

#endif /* RELAXSIM_EXPORT_H */
