/* check_report.c: the JUnit XML and JSON reports of `relaxsim check` (see check_report.h). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/check_report.h"
#include "cli/cli.h"
#include "io/output.h"

const char *rs_check_outcome_name(rs_check_outcome o)
{
    static const char *const names[] = {"passed", "failed", "bad_input", "crashed",
                                        "no_contract"};
    return (int)o >= 0 && o < RS_CHECK_OUTCOMES ? names[o] : "unknown";
}

/* The length of the valid UTF-8 sequence at s (1 to 4), or 0 if it is not one: the shortest
 * encoding of a code point that XML 1.0 allows (not a surrogate, U+FFFE, U+FFFF or above
 * U+10FFFF; the control characters are the caller's). */
static int utf8_length(const unsigned char *s)
{
    const int n = s[0] < 0x80         ? 1
                  : (s[0] >> 5) == 6  ? 2
                  : (s[0] >> 4) == 14 ? 3
                  : (s[0] >> 3) == 30 ? 4
                                      : 0;
    static const unsigned long lead_bits[5] = {0, 0x7f, 0x1f, 0x0f, 0x07};
    static const unsigned long smallest[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (n == 0)
        return 0;
    unsigned long cp = s[0] & lead_bits[n];
    for (int i = 1; i < n; i++) {
        if ((s[i] >> 6) != 2)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if (cp < smallest[n] || (cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe || cp == 0xffff ||
        cp > 0x10ffff)
        return 0;
    return n;
}

/* Text as XML attribute or element content: the five special characters escaped; control
 * characters other than tab and newline (not allowed in XML 1.0) and bytes that are not UTF-8
 * written as '?'. */
static void xml_text(FILE *f, const char *text)
{
    const unsigned char *s = (const unsigned char *)text;
    while (s && *s) {
        const int n = utf8_length(s);
        if (n > 1) {
            fwrite(s, 1, (size_t)n, f);
            s += n;
            continue;
        }
        switch (*s) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&apos;", f);
            break;
        default:
            fputc(n == 0 || (*s < 0x20 && *s != '\t' && *s != '\n') ? '?' : *s, f);
        }
        s++;
    }
}

/* The cases' classname: the path with '/' and '.' as '_' (CI systems read a dotted classname as
 * a package path), escaped. */
static void classname(FILE *f, const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf; *p; p++)
        if (*p == '/' || *p == '.')
            *p = '_';
    xml_text(f, buf);
}

int rs_check_write_junit(rs_outfile *out, const rs_check_file *files, int n, double time_s)
{
    rs_error_detail detail;
    FILE *f = rs_outfile_stream(out);
    int tests = 0, failures = 0, errors = 0;
    for (int i = 0; i < n; i++) {
        tests += files[i].ncases;
        failures += files[i].failures;
        errors += files[i].errors;
    }
    char stamp[32];
    const time_t now = time(NULL);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", gmtime(&now));
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<testsuites name=\"relaxsim check\" tests=\"%d\" failures=\"%d\" errors=\"%d\" "
            "time=\"%.3f\">\n",
            tests, failures, errors, time_s);
    for (int i = 0; i < n; i++) {
        const rs_check_file *cf = &files[i];
        fputs("  <testsuite name=\"", f);
        xml_text(f, cf->path);
        fprintf(f,
                "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"0\" time=\"%.3f\" "
                "timestamp=\"%s\" id=\"%d\">\n",
                cf->ncases, cf->failures, cf->errors, cf->time_s, stamp, i);
        fprintf(f,
                "    <properties>\n      <property name=\"kind\" value=\"%s\"/>\n"
                "      <property name=\"outcome\" value=\"%s\"/>\n    </properties>\n",
                cf->is_sweep ? "sweep" : "scenario", rs_check_outcome_name(cf->outcome));
        for (int k = 0; k < cf->ncases; k++) {
            const rs_check_case *c = &cf->cases[k];
            fputs("    <testcase classname=\"", f);
            classname(f, cf->path);
            fputs("\" name=\"", f);
            xml_text(f, c->name);
            fprintf(f, "\" time=\"%.3f\"", c->time_s);
            if (!c->failure) {
                fputs("/>\n", f);
                continue;
            }
            const char *tag = c->error ? "error" : "failure";
            fprintf(f, ">\n      <%s message=\"", tag);
            xml_text(f, c->failure);
            fprintf(f, "\" type=\"%s\">",
                    c->error ? rs_check_outcome_name(cf->outcome) : "contract");
            xml_text(f, c->failure);
            fprintf(f, "</%s>\n    </testcase>\n", tag);
        }
        fputs("  </testsuite>\n", f);
    }
    fputs("</testsuites>\n", f);
    const rs_error err = rs_outfile_commit(out, &detail);
    if (err != RS_OK)
        return rs_cli_output_error(err, "--junit: %s", detail.message), 0;
    return 1;
}

/* text as valid UTF-8: a byte that does not start a valid sequence becomes '?' (JSON is UTF-8;
 * a file name can hold any bytes). Returns buf. */
static const char *utf8_text(const char *text, char *buf, size_t len)
{
    size_t k = 0;
    const unsigned char *s = (const unsigned char *)(text ? text : "");
    while (*s && k + 5 < len) {
        const int m = utf8_length(s);
        if (m >= 1 && (m > 1 || *s >= 0x20 || *s == '\t' || *s == '\n')) {
            memcpy(buf + k, s, (size_t)m);
            k += (size_t)m;
            s += m;
        } else {
            buf[k++] = '?';
            s++;
        }
    }
    buf[k] = '\0';
    return buf;
}

int rs_check_write_json(rs_outfile *out, const rs_check_file *files, int n, double time_s)
{
    char buf[8192];
    cJSON *o = cJSON_CreateObject();
    int counts[RS_CHECK_OUTCOMES] = {0};
    cJSON *arr = cJSON_AddArrayToObject(o, "files");
    for (int i = 0; i < n; i++) {
        const rs_check_file *cf = &files[i];
        counts[cf->outcome]++;
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "path", utf8_text(cf->path, buf, sizeof buf));
        cJSON_AddStringToObject(j, "kind", cf->is_sweep ? "sweep" : "scenario");
        cJSON_AddStringToObject(j, "outcome", rs_check_outcome_name(cf->outcome));
        if (cf->message)
            cJSON_AddStringToObject(j, "message", utf8_text(cf->message, buf, sizeof buf));
        cJSON_AddNumberToObject(j, "time_s", cf->time_s);
        cJSON_AddNumberToObject(j, "cases", cf->ncases);
        cJSON_AddNumberToObject(j, "failures", cf->failures);
        cJSON_AddNumberToObject(j, "errors", cf->errors);
        cJSON *failed = cJSON_AddArrayToObject(j, "failed");
        for (int k = 0; k < cf->ncases; k++)
            if (cf->cases[k].failure) {
                cJSON *c = cJSON_CreateObject();
                cJSON_AddStringToObject(c, "case", utf8_text(cf->cases[k].name, buf, sizeof buf));
                cJSON_AddStringToObject(c, "message",
                                        utf8_text(cf->cases[k].failure, buf, sizeof buf));
                cJSON_AddItemToArray(failed, c);
            }
        cJSON_AddItemToArray(arr, j);
    }
    cJSON *t = cJSON_AddObjectToObject(o, "totals");
    cJSON_AddNumberToObject(t, "files", n);
    for (int k = 0; k < RS_CHECK_OUTCOMES; k++)
        cJSON_AddNumberToObject(t, rs_check_outcome_name((rs_check_outcome)k), counts[k]);
    cJSON_AddNumberToObject(t, "time_s", time_s);
    char *text = cJSON_Print(o);
    cJSON_Delete(o);
    rs_error_detail detail;
    if (rs_write_json_stream(rs_outfile_stream(out), text) != RS_OK) {
        rs_outfile_abort(out);
        return rs_cli_usage_error("--json: out of memory"), 0;
    }
    const rs_error err = rs_outfile_commit(out, &detail);
    if (err != RS_OK)
        return rs_cli_output_error(err, "--json: %s", detail.message), 0;
    return 1;
}
