/*
 * cli_interrupt.c: what the command does on Ctrl-C (SIGINT) or SIGTERM. The library never
 * installs handlers; the command does: it removes the staged files of outputs not yet put in
 * place (io/outset.h, so the previous outputs stay whole), says what was kept, and exits 130.
 * Only async-signal-safe calls (unlinkat, write, _exit) run in the handler.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "io/outset.h"

static char message[1024];
static pid_t owner; /* the command's process; its forked batch workers leave silently */

static void on_interrupt(int sig)
{
    (void)sig;
    rs_outset_remove_staged(); /* this process's own: a forked worker forgets its parent's */
    if (getpid() != owner)
        _exit(130);
    const ssize_t ignored = write(STDERR_FILENO, message, strlen(message));
    (void)ignored;
    _exit(130);
}

void rs_cli_on_interrupt(const char *what_is_kept)
{
    snprintf(message, sizeof message, "\nrelaxsim: interrupted; %s\n", what_is_kept);
    owner = getpid();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

