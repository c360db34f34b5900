/* cli.h: what the subcommands of the relaxsim command share. */
#ifndef RS_CLI_H
#define RS_CLI_H

#include <stdint.h>

/* Exit codes of the command. */
enum {
    RS_EXIT_OK = 0,       /* success */
    RS_EXIT_FAILED = 1,   /* a solve or a tolerance contract failed */
    RS_EXIT_USAGE = 2     /* bad usage or bad input */
};

/* Print "relaxsim: MESSAGE" to stderr and return RS_EXIT_USAGE. */
int rs_cli_usage_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Option values, checked: on failure print what is wrong with OPTION and return 0. */
int rs_cli_parse_long(const char *option, const char *text, long lo, long hi, long *out);
int rs_cli_parse_u64(const char *option, const char *text, uint64_t *out);
int rs_cli_parse_double(const char *option, const char *text, double lo, double hi, double *out);

/* Value of an option that takes one: argv[*i + 1], advancing *i; NULL (message printed) if absent. */
const char *rs_cli_option_value(int argc, char **argv, int *i);

/* Subcommands: argv[0] is the subcommand's own name. */
int rs_cmd_lcp_solve(int argc, char **argv);
int rs_cmd_lcp_gen(int argc, char **argv);

#endif
