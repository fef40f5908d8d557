#!/usr/bin/env bash
# The house rules a reader can check without building (issue 30), driven
# as tests/run.sh drives the C tests: `--list`, then one NAME (exit 0 pass,
# 1 fail, 77 skip).
#   long_functions   no function outside tests/ over 120 lines (C, CUDA)
#   scripts_strict   every shell script sets -euo pipefail, or says why not
#                    ("not -e: ...", or a sourced file's "no `set` of its own")
#   scripts_help     every script of scripts/ (a sourced file aside), the
#                    slurm/*.sbatch templates too, answers --help with its
#                    usage: scripts/README.md promises it, and
#                    six took --help for an input, one running its device
#                    session (session22's QA), the templates stopped at
#                    'SLURM_SUBMIT_DIR: unbound variable'; and the usage ends where the
#                    header does: bench-petsc-compare.sh's --help printed its
#                    first two lines of code ('set -euo pipefail', 'here=...'),
#                    and without the comment marks (five printed '# ' lines);
#                    a usage line names the script, not $0 (seven printed
#                    the whole path they were run by); and it names every
#                    variable the script reads with a default, ${NAME:-...}
#                    (nineteen read one their --help did not name: BENCH,
#                    OUT, ITERS, SOLVE, TL_BIN, ...)
#   make_help        `make help` names every variable the makefiles read
#                    that a user may set (NAME ?= ..., a feature switch,
#                    and one read but set nowhere in them, as CI or
#                    NCCL_HOME), each as NAME=: it had named 15 of 41,
#                    not CI=true (mk/config.mk), TL_DATA, SQLITE=,
#                    CUDA_HOME, DEMO_OUT ...
#   scripts_c_locale every script of scripts/ a user runs (a sourced file
#                    aside) and the Makefile's recipes export LC_ALL=C:
#                    none did, and under a comma-decimal LANG (ssh passes
#                    it on) mawk read 1.7261e-03 as 1 and bash's printf
#                    refused 183.21, the summaries wrong with exit 0
#   optional_libs_off
#                    every file that reads zlib or sqlite through
#                    TL_HAVE_* compiles with each of them off (-Werror): a
#                    build without json-c (read by then) stopped at an
#                    implicit declaration in analysis/kineto.c (session24's
#                    device), and CI has both, so only this compile sees
#                    that build
#   builds_with_clang
#                    the objects of the programs and libraries compile
#                    with clang and -Werror (-fsyntax-only: the warnings
#                    are the front end's; no code generated, nothing
#                    linked; make -n's compile lines, clang's front end
#                    started once for each set of their flags, a probe
#                    with a warning last), and without WERROR= clang's
#                    build gets no -Werror while gcc 12's (CI's) does:
#                    the default build with clang 14 stopped at
#                    analysis/cli.c's -Wstring-concatenation (skipped
#                    without clang)
#   rebuilds_on_new_cc
#                    an object built with one compiler is rebuilt when
#                    make is given another (CC=clang) or other flags
#                    (OPT=: build/cflags.txt rewritten), and not when
#                    given the same: `make CC=clang` after `make` said
#                    nothing to do and kept the gcc objects (qa-first2;
#                    make's decisions, with stand-ins for the compilers)
#   rebuilds_cu_on_new_flags
#                    a CUDA object is rebuilt when make is given another
#                    nvcc or nvcc flags (CUDA_ARCH=; NVCCFLAGS, NVCC=,
#                    OPT=: build/nvccflags.txt rewritten), and not on a
#                    C-only change (CC=), nor a C object on a CUDA-only
#                    one: `make CUDA_ARCH=80` after a build for 90 kept
#                    the sm_90 objects (qa-scripts8; one small .cu, built
#                    by an nvcc stand-in that writes an empty object: the
#                    real nvcc's two compiles were 21 s of CI; skipped
#                    without nvcc)
#   relinks_on_new_ldflags
#                    a test's helper is relinked, and not recompiled, when
#                    make is given other link flags (LDLIBS=, LDFLAGS=;
#                    build/ldflags.txt), and not when given the same: `make
#                    LDLIBS=-lm` after `make` said nothing to do and kept
#                    the binary linked without it (one small helper)
#   relinks_fuzzers_on_new_ldflags
#                    every fuzzer `make fuzz` builds is relinked, and
#                    nothing recompiled, when make is given other LDFLAGS
#                    (build/fuzz/ldflags.txt), and not when given the
#                    same: ldflags.txt relinked the programs and tests
#                    alone, and the fuzzers kept their old link (a tree
#                    made up to date by make -t: make's decisions, no
#                    clang work)
#   command_line_cflags_add
#                    CPPFLAGS= and CFLAGS= on make's command line add to
#                    the makefiles' own flags, after them (so CFLAGS=-O0
#                    wins over OPT's -O2): the makefiles built them with
#                    +=, which a command-line value overrides, and `make
#                    CPPFLAGS=-DX` lost the -I of config.h, `make
#                    CFLAGS=-O0` -fPIC and -MMD (runtime/error.c, 2 s)
#   link_lines_add_user_flags
#                    on every link line (a program, a shared library, a
#                    test's binary; LDFLAGS a fuzzer's too) CFLAGS= and
#                    LDFLAGS= (the latter from the environment) come after
#                    the makefiles' own flags and before the objects, and
#                    LDLIBS= after the makefiles' libraries (autoconf's
#                    order): no makefile read LDFLAGS (`make
#                    LDFLAGS=-L/opt/x/lib` reached no link), `make
#                    CFLAGS=-fsanitize=address` linked its instrumented
#                    objects without it (undefined __asan_register_globals),
#                    and `make LDLIBS=...` had lost every library of the
#                    makefiles' (make -n)
#   command_line_nvccflags_add
#                    NVCCFLAGS= on make's command line adds to the
#                    makefiles' nvcc flags, after them: `make
#                    NVCCFLAGS=-lineinfo` compiled without -gencode, -MMD
#                    and -Xcompiler -fPIC (one small .cu, PTX only; skipped
#                    without nvcc)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# The makes these tests run (some 30) label their builds with a commit
# given to them (TRILAP_COMMIT, mk/rules.mk), not one asked of git: its
# three commands were 0.12 s of CPU a make, and no test here reads the
# label
export TRILAP_COMMIT=test_structure
tests="long_functions scripts_strict scripts_help scripts_c_locale make_help optional_libs_off builds_with_clang
  rebuilds_on_new_cc rebuilds_cu_on_new_flags relinks_on_new_ldflags relinks_fuzzers_on_new_ldflags
  command_line_cflags_add link_lines_add_user_flags
  command_line_nvccflags_add"
fail() { echo "FAIL: $*" >&2; exit 1; }
# the tracked files are the ones that count: outside a git checkout, skip
tracked() { git -C "$top" rev-parse --git-dir >/dev/null 2>&1 || { echo "not a git checkout" >&2; exit 77; }; }

# Functions are found by their top-level braces after comments, strings
# and character constants are blanked: a `{` at depth 0 whose text before
# it ends with `)` opens one. Tracked files only, so a build tree or a
# scratch file does not count.
scan() { # file names on stdin (relative to the current folder)
    python3 -c '
import re, sys
LIMIT = 120
for f in sys.stdin.read().split():
    s = open(f, errors="replace").read()
    s = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), s, flags=re.S)
    s = re.sub(r"//[^\n]*", "", s)
    s = re.sub(r"\"(\\.|[^\"\\\n])*\"", "\"\"", s)
    s = re.sub(r"\x27(\\.|[^\x27\\\n])*\x27", "\x27\x27", s)
    lines = s.split("\n")
    depth, start = 0, None
    for i, l in enumerate(lines):
        for k, ch in enumerate(l):
            if ch == "{":
                if depth == 0:
                    j, txt = i, l[:k].strip()
                    while not txt and j > 0:
                        j -= 1
                        txt = lines[j].strip()
                    start = i if txt.endswith(")") else None
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0 and start is not None:
                    if i - start + 1 > LIMIT:
                        print("%s:%d: a function of %d lines" % (f, start + 1, i - start + 1))
                    start = None
'
}

long_functions() {
    command -v python3 >/dev/null || { echo "no python3" >&2; exit 77; }
    # the scan finds one when there is one (braces in strings and comments not counted)
    local probe out
    probe=$(mktemp -d "${TMPDIR:-/tmp}/tl_structure.XXXXXX")
    trap 'rm -rf "$probe"' RETURN
    { echo 'static int f(int x)'; echo '{ /* } */'; for _ in $(seq 119); do echo '    x += "}"[0];'; done; echo '}'
      echo 'int g(void) {'; echo '    return 0;'; echo '}'; } >"$probe/p.c"
    out=$(cd "$probe" && echo p.c | scan)
    [ "$out" = "p.c:2: a function of 121 lines" ] || fail "the scan missed the probe: '$out'"
    tracked
    out=$(cd "$top" && git ls-files '*.c' '*.cu' '*.h' '*.cuh' | grep -v '^tests/' | scan)
    [ -z "$out" ] || fail "functions over 120 lines:
$out"
}

scripts_strict() {
    local f bad=""
    tracked
    while read -r f; do
        grep -Eq '^set -E?euo pipefail' "$top/$f" && continue
        grep -Eq '# (not -e|.*no `set` of its own)' "$top/$f" && continue
        bad="$bad $f"
    done < <(cd "$top" && git ls-files '*.sh' '*.sbatch' .ci/run | grep -v '^results/') # results/: commands as run
    [ -z "$bad" ] || fail "scripts without set -euo pipefail or a stated reason:$bad"
}

scripts_c_locale() {
    local f bad=""
    tracked
    while read -r f; do
        grep -q 'no `set` of its own' "$top/$f" && continue
        grep -q '^export LC_ALL=C\b' "$top/$f" || bad="$bad $f"
    done < <(cd "$top" && git ls-files 'scripts/*.sh' 'scripts/*.sbatch')
    [ -z "$bad" ] || fail "scripts that do not export LC_ALL=C:$bad"
    grep -q '^export LC_ALL := C$' "$top/Makefile" || fail "the Makefile does not export LC_ALL := C to its recipes"
}

# A script runs nothing for --help: its usage is its header comment,
# printed in a scratch folder with a time limit, and nothing is left there.
# the text of file $1 in $text, read by the shell itself
read_text() { IFS= read -r -d '' text <"$1" || true; }

scripts_help() {
    local f bad="" code="" marks="" scratch rc text left
    # each script's --help, run once for both checks below; the checks in
    # the shell's own tests, not a grep each (339 greps, sed, sort and ls
    # were 3 s of CPU on CI's two cores)
    local -A help_of=()
    local re_code=$'(^|\n)(set -[a-zA-Z]|not -e)' re_marks=$'(^|\n)# '
    shopt -s nullglob dotglob # the scratch folder's files, hidden ones too
    tracked
    scratch=$(mktemp -d)
    while read -r f; do
        read_text "$top/$f"
        [[ $text != *'no `set` of its own'* ]] || continue
        rc=0
        out=$(cd "$scratch" && timeout 20 bash "$top/$f" --help 2>&1) || rc=$?
        help_of[$f]=$out
        left=("$scratch"/*)
        if [ "$rc" != 0 ] || [ -z "$out" ] || [ ${#left[@]} != 0 ]; then
            bad="$bad $f"
            rm -rf "${left[@]}"
        elif [[ $out =~ $re_code ]]; then
            code="$code $f"
        elif [[ $out =~ $re_marks ]]; then
            marks="$marks $f"
        fi
    done < <(cd "$top" && git ls-files 'scripts/*.sh' 'scripts/*.sbatch')
    rm -rf "$scratch"
    [ -z "$bad" ] || fail "scripts that do not answer --help with their usage (or wrote files doing it):$bad"
    # the reason a script is not -e speaks to its code's reader: eight
    # printed it as their usage's last line
    [ -z "$code" ] || fail "scripts whose --help prints lines of their code or their reason for not set -e (the usage runs past the header):$code"
    [ -z "$marks" ] || fail "scripts whose --help prints the header's comment marks ('# ' on each line):$marks"
    # a variable the script reads with a default (${NAME:-...}) is one its
    # user may set: the usage names it, as a word (the shell's, Slurm's
    # and Open MPI's own aside)
    local v undoc="" re_default='\$\{([A-Z][A-Z0-9_]*):?-'
    while read -r f; do
        read_text "$top/$f"
        [[ $text != *'no `set` of its own'* ]] || continue
        out=${help_of[$f]}
        local -A said=()
        while [[ $text =~ $re_default ]]; do
            v=${BASH_REMATCH[1]}
            text=${text#*"${BASH_REMATCH[0]}"}
            [ -z "${said[$v]:-}" ] || continue
            said[$v]=1
            case $v in TMPDIR | HOME | PATH | HOSTNAME | LD_LIBRARY_PATH | MODULESHOME | SLURM_* | OMPI_*) continue ;; esac
            [[ $out =~ (^|[^[:alnum:]_])$v([^[:alnum:]_]|$) ]] || undoc="$undoc $f:$v"
        done
        unset said
    done < <(cd "$top" && git ls-files 'scripts/*.sh' 'scripts/*.sbatch')
    [ -z "$undoc" ] || fail "scripts whose --help does not name a variable they read:$undoc"
    local paths
    paths=$(cd "$top" && git ls-files 'scripts/*.sh' 'scripts/*.sbatch' | xargs grep -ln 'usage: \$0' || true)
    [ -z "$paths" ] || fail "scripts whose usage line names the path they were run by (\$0), not the script:" $paths
}

# Every variable the makefiles read that a user may set: NAME ?= ...,
# the switches of feature_check, and the names read as $(NAME) that no
# makefile sets (given on the command line or in the environment: CI,
# NCCL_HOME, DESTDIR); make's own and HAVE_* (set through feature_check)
# aside, and TRILAP_COMMIT and TRILAP_COMMIT_FILE, device-session.sh's
make_help() {
    tracked
    local files names reads sets help missing="" n
    files=$(cd "$top" && git ls-files Makefile 'mk/*.mk' '*/module.mk')
    reads=$(cd "$top" && grep -ho '\$([A-Z][A-Z0-9_]*)' $files | tr -d '$()' | sort -u)
    sets=$(cd "$top" && grep -hoE '^\s*(export\s+)?[A-Z][A-Z0-9_]*\s*(:=|\?=|\+=|=)' $files |
        grep -oE '[A-Z][A-Z0-9_]*' | sort -u)
    names=$({
        comm -23 <(echo "$reads") <(echo "$sets")
        (cd "$top" && grep -hoE '^\s*[A-Z][A-Z0-9_]*\s*\?=' $files | grep -oE '[A-Z][A-Z0-9_]*')
        (cd "$top" && grep -ho 'call feature_check,[A-Z]*' $files | sed 's/.*,//')
    } | grep -vxE 'CURDIR|MAKE|MAKECMDGOALS|HAVE_[A-Z]+|TRILAP_COMMIT(_FILE)?' | sort -u)
    [ "$(wc -l <<<"$names")" -ge 30 ] || fail "found only $(wc -l <<<"$names") variables in $files"
    # a make of its own, not a sub-make of the make check that runs it
    help=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$top" --no-print-directory help 2>&1) || fail "make help: $help"
    for n in $names; do
        grep -q "\(^\|[^A-Z_]\)$n=" <<<"$help" || missing+=" $n"
    done
    [ -z "$missing" ] || fail "make help does not name:$missing"
}

optional_libs_off() {
    tracked
    local conf=${TL_BUILD:-$top/build}/config.h tmp lib f
    [ -f "$conf" ] || { echo "no $conf (make builds it)" >&2; exit 77; }
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' RETURN
    local files
    files=$(cd "$top" && git ls-files '*.c' | grep -v '^tests/' | xargs grep -l 'TL_HAVE_\(ZLIB\|SQLITE\)')
    [ -n "$files" ] || fail "no file reads TL_HAVE_ZLIB or TL_HAVE_SQLITE"
    for lib in ZLIB SQLITE; do
        mkdir -p "$tmp/$lib"
        sed "s/^#define TL_HAVE_$lib .*/#define TL_HAVE_$lib 0/" "$conf" >"$tmp/$lib/config.h"
        for f in $files; do
            (cd "$top" && ${CC:-cc} -std=c11 -Wall -Wextra -Wshadow -Wno-unused-parameter -Werror -D_GNU_SOURCE \
                -I"$tmp/$lib" -I. -fsyntax-only "$f") || fail "$f does not compile with TL_HAVE_$lib 0"
        done
    done
}

builds_with_clang() {
    command -v clang >/dev/null 2>&1 || { echo "no clang on PATH" >&2; exit 77; }
    local tmp
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' RETURN
    # what `make all` compiles, a target of the test's own, read after the
    # makefiles; its recipe (+: run under make -n too) counts the objects
    printf '%s\n' 'tl_objs := $(sort $(foreach x,$(MODULES) $(PROGRAMS) $(SHLIBS),$(call objs_of,$(x))))' \
        'tl_objects: $(tl_objs) ; +@echo $(words $(tl_objs)) >$(BUILD)/objects.count' >"$tmp/objects.mk"
    # a make of its own, not the jobserver of a make check running this
    local mk=(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$top" --no-print-directory -f Makefile -f "$tmp/objects.mk"
        CC=clang WERROR=1 OPT=-O0 CFLAGS=-fsyntax-only CUDA=0 BUILD="$tmp" BIN="$tmp/bin")
    "${mk[@]}" "$tmp/config.h" "$tmp/commit.h" >"$tmp/log" 2>&1 || fail "make CC=clang config.h: $(tail -n 3 "$tmp/log")"
    "${mk[@]}" -n V=1 tl_objects >"$tmp/lines" 2>&1 || fail "make -n CC=clang WERROR=1: $(tail -n 3 "$tmp/lines")"
    # make's compile line of each object ("clang FLAGS -c SRC -o OBJ"),
    # its sources grouped by their flags (less -MMD -MP: -fsyntax-only
    # writes the .d alone)
    local line words src key q i n=0
    local -A files_of=()
    while IFS= read -r line; do
        [[ $line == "clang "* ]] || continue
        eval "words=($line)"
        key="" src=""
        for ((i = 1; i < ${#words[@]}; i++)); do
            case ${words[i]} in
                -c) src=${words[i + 1]} i=$((i + 1)) ;;
                -o) i=$((i + 1)) ;;
                -MMD | -MP) ;;
                *) printf -v key '%s %q' "$key" "${words[i]}" ;;
            esac
        done
        [ -n "$src" ] || fail "a compile line without -c SRC: $line"
        printf -v q '%q' "$src"
        files_of[$key]+=" $q"
        n=$((n + 1))
    done <"$tmp/lines"
    [ "$n" -gt 0 ] && [ "$n" = "$(cat "$tmp/objects.count")" ] ||
        fail "make -n CC=clang listed $n compiles, not the $(cat "$tmp/objects.count") objects of all"
    # Each set through clang's front end (clang -cc1, as the driver starts
    # it for the set's first file) once, with every file of the set: each
    # input is a translation unit of its own, and a start (LLVM's
    # libraries loaded) was most of the ~0.2 s of CPU a file took (31 s a
    # make, 5 s this way). A probe with a warning last, so that the run is
    # seen to report a file after the first: its one error is all it says.
    local set_flags files cc1 args a out
    printf '%s\n' 'int tl_probe(void)' '{' '    int tl_probe_unused;' '    return 0;' '}' >"$tmp/probe.c"
    for key in "${!files_of[@]}"; do
        eval "set_flags=($key)" "files=(${files_of[$key]})"
        cc1=$(cd "$top" && clang -### "${set_flags[@]}" -c "${files[0]}" 2>&1 | grep -e '"-cc1"') ||
            fail "clang -### names no -cc1 job for ${files[0]}"
        [ "$(wc -l <<<"$cc1")" = 1 ] || fail "clang -### starts more than one job for ${files[0]}: $cc1"
        eval "cc1=($cc1)"
        args=()
        for a in "${cc1[@]}"; do [ "$a" = "${files[0]}" ] || args+=("$a"); done
        [ "${#args[@]}" = $((${#cc1[@]} - 1)) ] || fail "clang -### does not name ${files[0]} once: ${cc1[*]}"
        out=$(cd "$top" && "${args[@]}" "${files[@]}" "$tmp/probe.c" 2>&1) && fail "the probe's warning passed -Werror"
        [ "$(grep -c 'error:' <<<"$out")" = 1 ] && grep -q "^$tmp/probe.c:3:.*error: unused variable 'tl_probe_unused'" <<<"$out" ||
            fail "make CC=clang WERROR=1 (the objects of all: ${#files[@]} files with${set_flags[*]}): $(grep -m 3 -v probe <<<"$out")"
    done
    local cc flags
    for cc in clang gcc; do
        flags=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$top" --no-print-directory -n -B V=1 CC=$cc CUDA=0 \
            BUILD="$tmp" BIN="$tmp/bin" "$tmp/obj/runtime/error.o" 2>&1) || fail "make -n CC=$cc: $flags"
        flags=$(grep -e ' -c runtime/error\.c' <<<"$flags") || fail "make -n CC=$cc compiles no runtime/error.c"
        case $cc,$flags in
            clang,*-Werror*) fail "CC=clang without WERROR= builds with -Werror: $flags" ;;
            gcc,*-Werror*) ;;
            gcc,*) [ "$(printf '__clang__ __GNUC__\n' | gcc -E -P -x c -)" != "__clang__ 12" ] ||
                fail "CC=gcc (12, as CI) builds without -Werror: $flags" ;;
        esac
    done
}

# standin FILE WHAT: a stand-in compiler or linker (WHAT) at FILE that
# makes its -o file, empty: where make's decisions are the test, not the
# tool's work
standin() {
    printf '#!/bin/sh\n# not -e: a stand-in %s; its -o file made empty\nset -u\nout= prev=\nfor a in "$@"; do [ "$prev" = -o ] && out=$a; prev=$a; done\n[ -z "$out" ] || : >"$out"\n' \
        "$2" >"$1"
    chmod +x "$1"
}

rebuilds_on_new_cc() {
    local tmp o
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' RETURN
    o=$tmp/obj/runtime/error.o
    # two compilers, stand-ins named gcc and clang (the real ones' two
    # compiles were a third of the test's CPU)
    standin "$tmp/gcc" compiler
    standin "$tmp/clang" compiler
    # make VARS...: what make printed for the object (its "CC" line, or none)
    compiled() {
        env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$top" --no-print-directory CUDA=0 BUILD="$tmp" \
            BIN="$tmp/bin" "$@" "$o" 2>&1 | grep -c 'CC *runtime/error\.c' || true
    }
    [ "$(compiled CC="$tmp/gcc")" = 1 ] || fail "make CC=gcc did not compile runtime/error.c"
    [ "$(compiled CC="$tmp/gcc")" = 0 ] || fail "make CC=gcc again recompiled runtime/error.c"
    [ "$(compiled CC="$tmp/clang")" = 1 ] || fail "make CC=clang after CC=gcc kept the gcc object"
    # OPT= through the file the object was just seen rebuilt from
    [ "$(rewritten "$tmp" CUDA=0 CC="$tmp/clang" OPT=-O1)" = cflags ] || fail "make OPT=-O1 did not rewrite cflags.txt"
}

rebuilds_cu_on_new_flags() {
    command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ] || { echo "no nvcc" >&2; exit 77; }
    local tmp c cu
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' RETURN
    c=$tmp/obj/runtime/error.o cu=$tmp/obj/tests/gpu/helper_inject_target_kernels.o
    # nvcc stand-ins, two of them (another NVCC=), that write an empty
    # object: make's decisions are the test, and nvcc's own work on the
    # kernel took 21 s of two compiles in CI (command_line_nvccflags_add
    # runs the real one)
    standin "$tmp/nvcc" nvcc
    standin "$tmp/nvcc2" nvcc
    # make VARS...: the sources make compiled for the two objects, as
    # "CC runtime/error.c NVCC tests/gpu/..." (or nothing)
    compiled() {
        env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$top" --no-print-directory CUDA=1 CUDA_CODE=compute \
            NVCC="$tmp/nvcc" BUILD="$tmp" BIN="$tmp/bin" "$@" "$c" "$cu" 2>&1 |
            awk '$1 == "CC" || $1 == "NVCC" { print $1, $2 }' | sort | paste -sd' ' -
    }
    local both="CC runtime/error.c NVCC tests/gpu/helper_inject_target_kernels.cu"
    local kernel="NVCC tests/gpu/helper_inject_target_kernels.cu"
    [ "$(compiled CUDA_ARCH=90)" = "$both" ] || fail "make CUDA_ARCH=90 did not compile both objects"
    [ "$(compiled CUDA_ARCH=90)" = "" ] || fail "make CUDA_ARCH=90 again recompiled an object"
    [ "$(compiled CUDA_ARCH=80)" = "$kernel" ] || fail "make CUDA_ARCH=80 after 90 did not recompile the kernel alone"
    [ "$(compiled CUDA_ARCH=80 CC=gcc)" = "CC runtime/error.c" ] ||
        fail "make CC=gcc recompiled the kernel, or not the C object"
    [ "$(compiled CUDA_ARCH=80 CC=gcc NVCC="$tmp/nvcc2")" = "$kernel" ] ||
        fail "make NVCC= (another nvcc) did not recompile the kernel alone"
    # The other variables, each through the file the objects were just
    # seen rebuilt from, one change at a time
    local same=(CUDA=1 CUDA_CODE=compute CUDA_ARCH=80 CC=gcc NVCC="$tmp/nvcc2") nvccflags='-O2 -g -std=c++17'
    [ "$(NVCCFLAGS=$nvccflags rewritten "$tmp" "${same[@]}")" = nvccflags ] ||
        fail "a new NVCCFLAGS did not rewrite nvccflags.txt alone"
    [ "$(NVCCFLAGS=$nvccflags rewritten "$tmp" "${same[@]}" OPT=-O1)" = "cflags nvccflags" ] ||
        fail "make OPT=-O1 did not rewrite both flags files"
}

# rewritten BUILD VARS...: which of BUILD's flags files there (cflags,
# nvccflags, ldflags) make VARS... rewrote, compiling nothing: the objects
# and links depend on them, as the tests show once by a rebuild
rewritten() {
    local build=$1 f out files=()
    shift
    local -A was=()
    for f in cflags nvccflags ldflags; do
        [ -f "$build/$f.txt" ] || continue
        was[$f]=$(cat "$build/$f.txt")
        files+=("$build/$f.txt")
    done
    [ "${#files[@]}" -gt 0 ] || fail "no flags file in $build to compare"
    out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$top" --no-print-directory BUILD="$build" BIN="$build/bin" \
        "$@" "${files[@]}" 2>&1) || fail "make $*: $out"
    for f in cflags nvccflags ldflags; do
        [ -z "${was[$f]+set}" ] || [ "$(cat "$build/$f.txt")" = "${was[$f]}" ] || echo "$f"
    done | paste -sd' ' -
}

relinks_on_new_ldflags() {
    local tmp h
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' RETURN
    h=$tmp/tests/helper_inject_args
    # expect DID VARS...: make VARS... did DID for the helper ("CC LD":
    # compiled and linked it, "LD": linked it alone, "": nothing)
    expect() {
        local want=$1 out did
        shift
        out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$top" --no-print-directory CUDA=0 BUILD="$tmp" \
            BIN="$tmp/bin" "$@" "$h" 2>&1) || fail "make $*: $(tail -n 3 <<<"$out")"
        did=$(awk '$1 == "CC" || $1 == "LD" { print $1 }' <<<"$out" | paste -sd' ' -)
        [ "$did" = "$want" ] || fail "make $*: did '$did', not '$want' (CC: compiled, LD: linked)"
    }
    expect "CC LD"
    expect LD LDLIBS=-lm
    expect "" LDLIBS=-lm
    expect LD LDLIBS=-lm LDFLAGS=-L"$tmp"
}

# Every fuzzer `make fuzz` builds, in a tree made up to date by `make -t`
# (each target touched, not built: make's decisions are the test, and
# compiling the fuzzers' ~150 objects with clang and the sanitizers is
# minutes), the flags files of the objects written first as a build
# writes them; the relinks run a stand-in compiler, which makes an empty
# file
relinks_fuzzers_on_new_ldflags() {
    local tmp b all got
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' RETURN
    b=$tmp/b
    standin "$tmp/cc" linker
    # mk VARS... TARGETS: make's output in the test's tree
    mk() {
        local out
        out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$top" --no-print-directory CUDA=0 FUZZ_CC="$tmp/cc" \
            BUILD="$b" BIN="$b/bin" "$@" 2>&1) || fail "make $*: $(tail -n 3 <<<"$out")"
        printf '%s\n' "$out"
    }
    # linked VARS...: the fuzzers make VARS... fuzz linked, "" when none;
    # it fails the test when it compiled anything
    linked() {
        local out
        out=$(mk "$@" fuzz)
        ! grep -qE '^ *(FUZZCC|CC|AR) ' <<<"$out" || fail "make $* fuzz compiled: $out"
        awk '$1 == "FUZZ" { print $2 }' <<<"$out" | sort | paste -sd' ' -
    }
    mk "$b/config.h" "$b/commit.h" "$b/cflags.txt" "$b/ldflags.txt" >/dev/null
    # make -t touches, and makes no folder: the objects' ones, as the sources'
    (cd "$top" && git ls-files '*.c' | sed 's|/[^/]*$||' | sort -u |
        while read -r d; do mkdir -p "$b/obj/$d" "$b/fuzz/obj/$d"; done) && mkdir -p "$b/lib"
    mk -t fuzz >/dev/null
    all=$(find "$b/fuzz" -maxdepth 1 -name 'fuzz_*' | sort | paste -sd' ' -)
    grep -qw "$b/fuzz/fuzz_mmio" <<<"$all" || fail "make -t fuzz made no fuzz_mmio: '$all'"
    # the first make writes the flags files make -t left empty (and may relink)
    linked >/dev/null
    [ "$(linked)" = "" ] || fail "make fuzz again relinked a fuzzer"
    got=$(linked LDFLAGS=-L"$tmp")
    [ "$got" = "$all" ] || fail "make LDFLAGS=-L$tmp fuzz relinked '$got', not every fuzzer: '$all'"
    [ "$(linked LDFLAGS=-L"$tmp")" = "" ] || fail "make LDFLAGS=-L$tmp fuzz again relinked a fuzzer"
}

# in_order LINE FIRST LAST: FIRST is a word of LINE, and LAST a word after it
in_order() {
    awk -v first="$2" -v last="$3" '{ for (i = 1; i <= NF; i++) { if ($i == first && !f) f = i; if ($i == last) l = i } }
        END { exit !(f && l > f) }' <<<"$1"
}

# in_line LINE WHAT WORDS...: each of WORDS is a word of LINE, the command
# make ran (or would run) for WHAT
in_line() {
    local line=$1 what=$2 w
    shift 2
    for w in "$@"; do
        grep -qF -- " $w " <<<" $line " || fail "$what: no $w in: $line"
    done
}

command_line_cflags_add() {
    local tmp out line o
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' RETURN
    o=$tmp/obj/runtime/error.o
    # a make of its own, not a sub-make of the make check that runs it
    out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$top" --no-print-directory V=1 CUDA=0 OPT=-O2 \
        BUILD="$tmp" BIN="$tmp/bin" CPPFLAGS=-DTL_USER_CPPFLAG CFLAGS=-O0 "$o" 2>&1) ||
        fail "make CPPFLAGS=-DTL_USER_CPPFLAG CFLAGS=-O0: $(grep -m 3 error <<<"$out")"
    line=$(grep -e ' -c runtime/error\.c' <<<"$out") || fail "make compiled no runtime/error.c: $out"
    in_line "$line" "make CPPFLAGS= CFLAGS=" "-I$tmp" -std=c11 -fPIC -MMD -DTL_USER_CPPFLAG -O0
    in_order "$line" -O2 -O0 || fail "CFLAGS=-O0 before OPT's -O2, which wins: $line"
    [ -s "$tmp/obj/runtime/error.d" ] || fail "make CFLAGS=-O0 wrote no runtime/error.d (-MMD)"
}

# Every link rule of mk/rules.mk (program, shared library, test) and a
# fuzzer's, as make -n would run them. -fopenmp closes the makefiles' own
# flags (OPENMP=1), -lm their libraries.
link_lines_add_user_flags() {
    local tmp out f line first_obj
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' RETURN
    local links="$tmp/bin/trilap-matgen $tmp/lib/libtrilap-probes.so $tmp/tests/helper_inject_args"
    out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL LDFLAGS=-L/tl/user/lib make -C "$top" --no-print-directory -n \
        V=1 CUDA=0 OPENMP=1 BUILD="$tmp" BIN="$tmp/bin" CFLAGS=-fsanitize=address LDLIBS=-ltl_user_lib \
        $links "$tmp/fuzz/fuzz_mmio" 2>&1) || fail "make -n CFLAGS= LDFLAGS= LDLIBS=: $out"
    for f in $links "$tmp/fuzz/fuzz_mmio"; do
        line=$(grep -e "-o $f " <<<"$out") || fail "make -n links no $f: $out"
        first_obj=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /\.o$/) { print $i; exit } }' <<<"$line")
        [ -n "$first_obj" ] || fail "the link of $f names no object: $line"
        in_line "$line" "the link of $f (LDFLAGS=-L/tl/user/lib)" -L/tl/user/lib
        in_order "$line" -L/tl/user/lib "$first_obj" || fail "LDFLAGS after the objects: $line"
        [ "$f" != "$tmp/fuzz/fuzz_mmio" ] || continue # a build of its own, clang's flags alone
        in_line "$line" "the link of $f (make CFLAGS=-fsanitize=address LDLIBS=-ltl_user_lib)" \
            -fopenmp -fsanitize=address -lm -ltl_user_lib
        in_order "$line" -fopenmp -fsanitize=address || fail "CFLAGS before the makefiles' flags: $line"
        in_order "$line" -fsanitize=address -L/tl/user/lib || fail "LDFLAGS before CFLAGS: $line"
        in_order "$line" -lm -ltl_user_lib || fail "LDLIBS=-ltl_user_lib before the makefiles' libraries: $line"
    done
}

command_line_nvccflags_add() {
    command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ] || { echo "no nvcc" >&2; exit 77; }
    local tmp out line cu
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' RETURN
    cu=$tmp/obj/tests/gpu/helper_inject_target_kernels.o
    out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$top" --no-print-directory V=1 CUDA=1 CUDA_CODE=compute \
        CUDA_ARCH=90 BUILD="$tmp" BIN="$tmp/bin" NVCCFLAGS="-lineinfo -DTL_USER_NVCCFLAG" "$cu" 2>&1) ||
        fail "make NVCCFLAGS='-lineinfo -DTL_USER_NVCCFLAG': $(grep -m 3 error <<<"$out")"
    line=$(grep -e ' -c tests/gpu/helper_inject_target_kernels\.cu' <<<"$out") || fail "make compiled no kernel: $out"
    in_line "$line" "make NVCCFLAGS=" "-I$tmp" -std=c++17 arch=compute_90,code=compute_90 -Xcompiler -MMD -DTL_USER_NVCCFLAG
    in_order "$line" arch=compute_90,code=compute_90 -DTL_USER_NVCCFLAG ||
        fail "NVCCFLAGS before the makefiles' flags, which win: $line"
    [ -s "${cu%.o}.d" ] || fail "make NVCCFLAGS= wrote no ${cu%.o}.d (-MMD)"
}

case ${1:-} in
  --list) printf '%s\n' $tests ;;
  '') echo "usage: $0 --list | TEST" >&2; exit 2 ;;
  *)
    grep -qw -- "$1" <<<"$tests" || { echo "$0: unknown test '$1'" >&2; exit 2; }
    "$1"
    ;;
esac
