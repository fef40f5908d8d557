/* scripts/install-deps.sh against stand-ins for dpkg-query, apt-get, sudo
 * and id on PATH (this machine's packages are never touched): silent when
 * nothing is missing; as root or with password-less sudo it installs what
 * mk/debian-packages.txt lists and is missing; otherwise it prints the one
 * command and goes on; TRILAP_NO_INSTALL and TRILAP_DRY_RUN; a name the
 * release lacks does not block the others; `make check` / `make demo` run
 * it before the build looks for its features. */
#include <sys/stat.h>
#include <unistd.h>

#include "tests/tl_test.h"
#include "tests/tl_test_run.h"

typedef struct {
    char dir[512], log[600], env[2048];
} fakes;

static void write_exec(const char *dir, const char *name, const char *body)
{
    char p[700];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    TL_ASSERT_MSG(f, "cannot write %s", p);
    fprintf(f, "#!/bin/sh\n%s", body);
    fclose(f);
    TL_ASSERT_EQ(chmod(p, 0755), 0);
}

/* Every listed package installed ("ii") except those in `missing` (space
 * separated); `status` is the dpkg status the missing ones show ("" none,
 * "rc" removed with configuration files left). */
static void setup(fakes *fk, const char *missing, const char *status, int uid, int sudo_ok,
                  const char *unknown)
{
    const char *t = tl_test_tmpdir();
    snprintf(fk->dir, sizeof fk->dir, "%s/bin", t);
    snprintf(fk->log, sizeof fk->log, "%s/log", t);
    TL_ASSERT_EQ(mkdir(fk->dir, 0755), 0);
    char cmd[2048];
    snprintf(
        cmd, sizeof cmd,
        "scripts/install-deps.sh --list | while read p; do case ' %s ' in *\" $p \"*) "
        "if [ -n '%s' ]; then echo \"$p %s\"; fi;; *) echo \"$p ii\";; esac; done > %s/state && "
        ": > %s",
        missing, status, status, t, fk->log);
    TL_ASSERT_MSG(system(cmd) == 0, "%s", cmd);
    /* dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' names... */
    write_exec(fk->dir, "dpkg-query",
               "shift 2; rc=0\n"
               "for p; do l=$(grep \"^$p \" \"$FAKE_STATE\"); "
               "if [ -n \"$l\" ]; then echo \"$l \"; else echo \"dpkg-query: no packages found "
               "matching $p\" >&2; rc=1; fi; done\nexit $rc\n");
    write_exec(fk->dir, "apt-get",
               "echo \"apt-get $*\" >> \"$FAKE_LOG\"\n"
               "[ \"$1\" = update ] && exit 0\n"
               "for p; do case $p in -*|install) ;; *) case \" $FAKE_UNKNOWN \" in *\" $p \"*) "
               "echo \"E: Unable to locate package $p\" >&2; exit 100;; esac;; esac; done\n"
               "for p; do case $p in -*|install) ;; *) grep -v \"^$p \" \"$FAKE_STATE\" > "
               "\"$FAKE_STATE.new\"; echo \"$p ii\" >> \"$FAKE_STATE.new\"; "
               "mv \"$FAKE_STATE.new\" \"$FAKE_STATE\";; esac; done\n");
    write_exec(fk->dir, "id", "[ \"$1\" = -u ] && echo \"$FAKE_UID\"\n");
    write_exec(fk->dir, "sudo",
               "[ \"$1\" = -n ] || exit 1\nshift\n[ \"$FAKE_SUDO\" = 1 ] || { echo 'sudo: a "
               "password is required' >&2; exit 1; }\n"
               "[ \"$1\" = true ] || echo \"sudo $*\" >> \"$FAKE_LOG\"\nexec \"$@\"\n");
    snprintf(fk->env, sizeof fk->env,
             "env -u TRILAP_NO_INSTALL -u TRILAP_DRY_RUN -u TRILAP_DEPS_CHECKED PATH=%s:$PATH "
             "FAKE_STATE=%s/state "
             "FAKE_LOG=%s FAKE_UID=%d FAKE_SUDO=%d FAKE_UNKNOWN='%s'",
             fk->dir, t, fk->log, uid, sudo_ok, unknown ? unknown : "");
}

static int run(const fakes *fk, const char *pre, const char *args, char **err)
{
    char cmd[4096], *out = NULL;
    snprintf(cmd, sizeof cmd, "%s %s scripts/install-deps.sh %s", fk->env, pre, args);
    int rc = tl_test_run(cmd, &out, err);
    TL_ASSERT_MSG(out[0] == '\0', "stdout is not empty: %s", out);
    free(out);
    return rc;
}

TL_TEST(nothing_missing_is_silent)
{
    fakes fk;
    setup(&fk, "", "", 0, 0, NULL);
    char *err = NULL;
    TL_ASSERT_EQ(run(&fk, "", "", &err), 0);
    TL_ASSERT_MSG(err[0] == '\0', "said: %s", err);
    char *log = tl_test_read(fk.log);
    TL_ASSERT_MSG(log[0] == '\0', "ran: %s", log);
    free(err);
    free(log);
}

TL_TEST(root_installs_what_is_missing)
{
    fakes fk;
    setup(&fk, "gnuplot-nox libsqlite3-dev", "", 0, 0, NULL);
    char *err = NULL;
    TL_ASSERT_EQ(run(&fk, "", "--require", &err), 0);
    char *log = tl_test_read(fk.log);
    TL_ASSERT_MSG(strstr(log, "apt-get update -qq\n"), "%s", log);
    TL_ASSERT_MSG(strstr(log, "apt-get install -y -qq --no-install-recommends gnuplot-nox "
                              "libsqlite3-dev\n"),
                  "%s", log);
    TL_ASSERT_MSG(!strstr(log, "sudo"), "%s", log);
    TL_ASSERT_MSG(strstr(err, "missing Debian packages: gnuplot-nox libsqlite3-dev"), "%s", err);
    TL_ASSERT_MSG(strstr(err, "installed gnuplot-nox libsqlite3-dev"), "%s", err);
    free(err);
    free(log);
    /* and then nothing is missing */
    TL_ASSERT_EQ(run(&fk, "", "", &err), 0);
    TL_ASSERT_MSG(err[0] == '\0', "said: %s", err);
    free(err);
}

TL_TEST(removed_package_counts_as_missing)
{
    fakes fk;
    setup(&fk, "gnuplot-nox", "rc", 0, 0, NULL); /* removed, configuration files left */
    char *err = NULL;
    TL_ASSERT_EQ(run(&fk, "", "", &err), 0);
    char *log = tl_test_read(fk.log);
    TL_ASSERT_MSG(strstr(log, "--no-install-recommends gnuplot-nox\n"), "%s", log);
    free(err);
    free(log);
}

TL_TEST(passwordless_sudo_installs)
{
    fakes fk;
    setup(&fk, "gnuplot-nox", "", 1000, 1, NULL);
    char *err = NULL;
    TL_ASSERT_EQ(run(&fk, "", "", &err), 0);
    char *log = tl_test_read(fk.log);
    TL_ASSERT_MSG(strstr(log, "sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "
                              "--no-install-recommends gnuplot-nox\n"),
                  "%s", log);
    TL_ASSERT_MSG(strstr(err, "installing them with sudo"), "%s", err);
    free(err);
    free(log);
}

TL_TEST(no_root_prints_the_command)
{
    fakes fk;
    setup(&fk, "gnuplot-nox petsc-dev", "", 1000, 0, NULL);
    char *err = NULL;
    TL_ASSERT_EQ(run(&fk, "", "", &err), 0); /* the caller goes on */
    TL_ASSERT_MSG(strstr(err, "\n  sudo apt-get install -y --no-install-recommends gnuplot-nox "
                              "petsc-dev\n"),
                  "%s", err);
    TL_ASSERT_MSG(strstr(err, "going on without them"), "%s", err);
    char *log = tl_test_read(fk.log);
    TL_ASSERT_MSG(log[0] == '\0', "ran: %s", log);
    free(err);
    free(log);
    TL_ASSERT_EQ(run(&fk, "", "--require", &err), 1);
    free(err);
}

TL_TEST(skip_and_dry_run)
{
    fakes fk;
    setup(&fk, "gnuplot-nox", "", 0, 0, NULL);
    char *err = NULL;
    TL_ASSERT_EQ(run(&fk, "TRILAP_NO_INSTALL=1", "", &err), 0);
    TL_ASSERT_MSG(err[0] == '\0', "said: %s", err);
    free(err);
    TL_ASSERT_EQ(run(&fk, "TRILAP_DRY_RUN=1", "", &err), 0);
    TL_ASSERT_MSG(strstr(err, "would run: apt-get install -y -qq --no-install-recommends "
                              "gnuplot-nox\n"),
                  "%s", err);
    char *log = tl_test_read(fk.log);
    TL_ASSERT_MSG(log[0] == '\0', "ran: %s", log);
    free(err);
    free(log);
}

/* --require asks whether the packages are there when it ends; a dry run
 * installs nothing, so they are not: exit 1, after what would have run
 * (before: exit 0, as if they had gone in, where a caller without root
 * got 1 for the same machine). With nothing missing, 0 and silent. */
TL_TEST(dry_run_require_fails_while_missing)
{
    fakes fk;
    setup(&fk, "gnuplot-nox", "", 0, 0, NULL);
    char *err = NULL;
    TL_ASSERT_EQ(run(&fk, "TRILAP_DRY_RUN=1", "--require", &err), 1);
    TL_ASSERT_MSG(strstr(err, "dry run: would install them as root (apt-get;"), "%s", err);
    TL_ASSERT_MSG(strstr(err, "would run: apt-get install -y -qq --no-install-recommends gnuplot-nox\n"), "%s", err);
    TL_ASSERT_MSG(strstr(err, "\ninstall-deps.sh: dry run, nothing installed: still missing: gnuplot-nox; "
                              "--require: stopping without them\n"),
                  "%s", err);
    char *log = tl_test_read(fk.log);
    TL_ASSERT_MSG(log[0] == '\0', "ran: %s", log);
    free(err);
    free(log);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "echo 'gnuplot-nox ii' >> %s/../state", fk.dir);
    TL_ASSERT_MSG(system(cmd) == 0, "%s", cmd);
    TL_ASSERT_EQ(run(&fk, "TRILAP_DRY_RUN=1", "--require", &err), 0);
    TL_ASSERT_MSG(err[0] == '\0', "said: %s", err);
    free(err);
}

TL_TEST(unknown_name_does_not_block_the_others)
{
    fakes fk;
    setup(&fk, "gnuplot-nox libclang-rt-14-dev", "", 0, 0, "libclang-rt-14-dev");
    char *err = NULL;
    TL_ASSERT_EQ(run(&fk, "", "", &err), 0);
    TL_ASSERT_MSG(strstr(err, "could not install libclang-rt-14-dev"), "%s", err);
    /* apt-get's own words are shown when it fails, not otherwise */
    TL_ASSERT_MSG(strstr(err, "\n  E: Unable to locate package libclang-rt-14-dev\n"), "%s", err);
    TL_ASSERT_MSG(strstr(err, "still missing: libclang-rt-14-dev;"), "%s", err);
    char *log = tl_test_read(fk.log);
    TL_ASSERT_MSG(strstr(log, "--no-install-recommends gnuplot-nox\n"), "%s", log);
    free(err);
    free(log);
    /* gnuplot-nox went in: only the unknown one is left */
    TL_ASSERT_EQ(run(&fk, "", "--require", &err), 1);
    TL_ASSERT_MSG(strstr(err, "missing Debian packages: libclang-rt-14-dev\n"), "%s", err);
    free(err);
}

/* Another system: PATH holds the tools the script needs and, of dpkg's
 * and apt's, the stand-in dpkg-query alone or nothing. Without dpkg-query
 * nothing can be checked: --require exit 1, without it 0, each after the
 * "yourself" line; with dpkg-query and no apt-get a package missing is
 * one line, --require exit 1, and nothing missing exit 0, silent. Before:
 * exit 0 in every case, "install the equivalents yourself" under --require. */
TL_TEST(not_debian_require_fails)
{
    fakes fk;
    setup(&fk, "gnuplot-nox", "", 0, 0, NULL);
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "mkdir %s/os && for c in bash sed awk dirname cat grep id mktemp rm env; do "
             "ln -s \"$(command -v $c)\" %s/os/$c || exit 1; done",
             fk.dir, fk.dir);
    TL_ASSERT_MSG(system(cmd) == 0, "%s", cmd);
    char pre[1200];
    snprintf(pre, sizeof pre, "PATH=%s/os", fk.dir);
    static const struct { const char *args; int rc; const char *last; } runs[] = {
        {"--require", 1, "install-deps.sh: --require: cannot check that they are installed here\n"},
        {"", 0, " gnuplot-nox petsc-dev "},
    };
    for (int i = 0; i < 2; i++) {
        char *err = NULL;
        TL_ASSERT_EQ(run(&fk, pre, runs[i].args, &err), runs[i].rc);
        TL_ASSERT_MSG(strstr(err, "install-deps.sh: not a Debian system (no dpkg-query): install the equivalents of ") &&
                          strstr(err, runs[i].last) && tl_test_count(err, "\n") == 1 + (i == 0),
                      "%s: %s", runs[i].args, err);
        free(err);
    }
    snprintf(cmd, sizeof cmd, "ln -s ../dpkg-query %s/os/dpkg-query", fk.dir);
    TL_ASSERT_MSG(system(cmd) == 0, "%s", cmd);
    char *err = NULL;
    TL_ASSERT_EQ(run(&fk, pre, "--require", &err), 1);
    TL_ASSERT_MSG(!strcmp(err, "install-deps.sh: missing Debian packages: gnuplot-nox; no apt-get to install them: "
                               "install them yourself\ninstall-deps.sh: --require: stopping without them\n"),
                  "%s", err);
    free(err);
    TL_ASSERT_EQ(run(&fk, pre, "", &err), 0);
    TL_ASSERT_MSG(tl_test_count(err, "\n") == 1 && strstr(err, "no apt-get"), "%s", err);
    free(err);
    snprintf(cmd, sizeof cmd, "echo 'gnuplot-nox ii' >> %s/../state", fk.dir);
    TL_ASSERT_MSG(system(cmd) == 0, "%s", cmd);
    TL_ASSERT_EQ(run(&fk, pre, "--require", &err), 0);
    TL_ASSERT_MSG(err[0] == '\0', "said: %s", err);
    free(err);
    char *log = tl_test_read(fk.log);
    TL_ASSERT_MSG(log[0] == '\0', "ran: %s", log);
    free(log);
}

/* make check / make demo run it while reading the Makefile, before
 * mk/config.mk looks for gnuplot and the rest; other goals do not. */
/* TRILAP_PACKAGES naming a folder or nothing readable: one line naming
 * it, exit 1, with or without --list (before, a folder passed the -r
 * test: sed's "read error on DIR: Is a directory" twice and exit 0, or
 * exit 4 with --list). */
TL_TEST(package_list_not_a_file_one_line)
{
    fakes fk;
    setup(&fk, "", "", 0, 0, NULL);
    const char *t = tl_test_tmpdir();
    char pre[700], want[900];
    static const char *const args[] = {"", "--list", "--require"};
    for (int k = 0; k < 2; k++) {
        snprintf(pre, sizeof pre, "TRILAP_PACKAGES=%s%s", t, k ? "/none" : "");
        snprintf(want, sizeof want, "install-deps.sh: cannot read the package list %s%s%s\n", t, k ? "/none" : "",
                 k ? "" : " (a folder, not a file)");
        for (int i = 0; i < 3; i++) {
            char *err = NULL;
            TL_ASSERT_EQ(run(&fk, pre, args[i], &err), 1);
            TL_ASSERT_MSG(!strcmp(err, want), "'%s' %s: %s", pre, args[i], err);
            free(err);
        }
    }
}

TL_TEST(make_goals_run_it_first)
{
    fakes fk;
    setup(&fk, "gnuplot-nox", "", 0, 0, NULL);
    static const char *const goals[] = {"check", "demo", "all"};
    for (int i = 0; i < 3; i++) {
        char cmd[4096], *out = NULL, *err = NULL;
        TL_ASSERT_OK(truncate(fk.log, 0));
        snprintf(cmd, sizeof cmd, "%s TRILAP_DRY_RUN=1 make -n --no-print-directory %s", fk.env,
                 goals[i]);
        TL_ASSERT_EQ(tl_test_run(cmd, &out, &err), 0);
        int said = strstr(err, "install-deps.sh: would run: apt-get install") != NULL;
        TL_ASSERT_MSG(said == (i < 2), "make %s:\n%s", goals[i], err);
        free(out);
        free(err);
    }
}

TL_TEST_MAIN(nothing_missing_is_silent, root_installs_what_is_missing,
             removed_package_counts_as_missing, passwordless_sudo_installs,
             no_root_prints_the_command, skip_and_dry_run, dry_run_require_fails_while_missing, unknown_name_does_not_block_the_others,
             not_debian_require_fails, package_list_not_a_file_one_line,
             make_goals_run_it_first)
