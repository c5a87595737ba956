#!/usr/bin/env bash
# bootstrap_test.sh: scripts/bootstrap in a fake machine, so that nothing is installed and no
# network is needed. PATH holds only stubs (id, dpkg-query, apt-get, and sudo where a case
# has one) and the few real tools the script uses. Checks what a user without root is told:
# with no sudo, and with a sudo that needs a password and no terminal to ask on, bootstrap
# must exit non-zero, list the missing packages and print the command that installs them,
# and never call apt-get. Also: nothing missing is silent, and as root (or with sudo that
# needs no password) it calls apt-get for exactly the missing packages.
# Usage: bootstrap_test.sh PATH/TO/scripts/bootstrap
set -uo pipefail
bootstrap=${1:?usage: bootstrap_test.sh scripts/bootstrap}
work=$(mktemp -d -t mirac-bootstrap-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
failures=0

fail() { echo "FAIL [$case]: $*" >&2; failures=$((failures + 1)); }
expect_in() {  # expect_in FILE TEXT: TEXT appears in FILE
  grep -qF -- "$2" "$1" || fail "expected in $(basename "$1"): '$2'; it holds: $(cat "$1")"
}

# The packages the script asks for, read from it, so that the test follows its list. npm
# is asked for when no npm is on the PATH, as here.
mapfile -t all < <(sed -n '/^packages=(/,/^)/p' "$bootstrap" | sed '1s/^packages=(//; $d' | tr ' ' '\n' | grep -v '^$')
all+=(npm)
[ ${#all[@]} -gt 5 ] || { echo "FAIL: could not read the package list of $bootstrap" >&2; exit 1; }
installed=(cmake git)  # present on the fake machine; never reported missing
missing=()
for p in "${all[@]}"; do [[ " ${installed[*]} " == *" $p "* ]] || missing+=("$p"); done

# make_machine DIR UID SUDO: stubs under DIR/bin. UID is what `id -u` says; SUDO is none,
# password (sudo -n fails as when a password is needed) or nopassword. Every apt-get call
# (through sudo or not) is appended to DIR/apt.log and succeeds without doing anything.
make_machine() {
  local dir=$1 uid=$2 sudo=$3
  mkdir -p "$dir/bin"
  for tool in bash grep mktemp cat rm; do ln -s "$(command -v "$tool")" "$dir/bin/$tool"; done
  printf '#!%s\n[ "$1" = -u ] && echo %s && exit 0\necho "uid=%s(user) gid=%s(user)"\n' \
    "$(command -v bash)" "$uid" "$uid" "$uid" >"$dir/bin/id"
  printf '#!%s\n# dpkg-query -W -f=FORMAT PACKAGE\nfor p in %s; do [ "${!#}" = "$p" ] && printf "install ok installed" && exit 0; done\necho "dpkg-query: no packages found matching ${!#}" >&2\nexit 1\n' \
    "$(command -v bash)" "${installed[*]}" >"$dir/bin/dpkg-query"
  printf '#!%s\necho "apt-get $*" >>"%s/apt.log"\n' "$(command -v bash)" "$dir" >"$dir/bin/apt-get"
  case $sudo in
    password)
      printf '#!%s\nif [ "$1" = -n ]; then echo "sudo: a password is required" >&2; exit 1; fi\necho "sudo $*" >>"%s/sudo.log"\nexit 1\n' \
        "$(command -v bash)" "$dir" >"$dir/bin/sudo" ;;
    nopassword)
      printf '#!%s\n[ "$1" = -n ] && shift\necho "sudo $*" >>"%s/sudo.log"\n"$@"\n' "$(command -v bash)" "$dir" >"$dir/bin/sudo" ;;
  esac
  chmod +x "$dir"/bin/*
  touch "$dir/apt.log"
}

# run_bootstrap DIR: bootstrap with only DIR/bin on PATH and no terminal on stdin.
run_bootstrap() {
  local dir=$1
  env -i HOME="$dir" PATH="$dir/bin" TMPDIR="$dir" "$(command -v bash)" "$bootstrap" \
    </dev/null >"$dir/stdout" 2>"$dir/stderr"
  echo $? >"$dir/rc"
}

# A refusal: non-zero, the reason, every missing package, the command, and no apt-get.
check_refusal() {
  local dir=$1 reason=$2
  [ "$(cat "$dir/rc")" != 0 ] || fail "exit code 0; expected non-zero"
  expect_in "$dir/stderr" "$reason"
  expect_in "$dir/stderr" "these Debian packages are missing: ${missing[*]}"
  expect_in "$dir/stderr" "apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
  for p in "${installed[@]}"; do
    grep -q "missing: .*\b$p\b" "$dir/stderr" && fail "$p is installed but reported missing"
  done
  [ -s "$dir/apt.log" ] && fail "apt-get was called: $(cat "$dir/apt.log")"
  return 0
}

case="no root, no sudo"
make_machine "$work/nosudo" 1000 none
run_bootstrap "$work/nosudo"
check_refusal "$work/nosudo" "not running as root, and sudo is not installed"

case="no root, sudo needs a password, no terminal"
make_machine "$work/password" 1000 password
run_bootstrap "$work/password"
check_refusal "$work/password" "sudo needs a password"
expect_in "$work/password/stderr" "from a terminal"
[ -s "$work/password/sudo.log" ] && fail "sudo was used beyond sudo -n: $(cat "$work/password/sudo.log")"

case="nothing missing"
installed_before=("${installed[@]}")
installed=("${all[@]}")
make_machine "$work/complete" 1000 none
run_bootstrap "$work/complete"
[ "$(cat "$work/complete/rc")" = 0 ] || fail "exit code $(cat "$work/complete/rc"); expected 0: $(cat "$work/complete/stderr")"
[ -s "$work/complete/stderr" ] && fail "says something with nothing to do: $(cat "$work/complete/stderr")"
[ -s "$work/complete/apt.log" ] && fail "apt-get was called: $(cat "$work/complete/apt.log")"
installed=("${installed_before[@]}")

case="root"
make_machine "$work/root" 0 none
run_bootstrap "$work/root"
[ "$(cat "$work/root/rc")" = 0 ] || fail "exit code $(cat "$work/root/rc"); expected 0: $(cat "$work/root/stderr")"
expect_in "$work/root/apt.log" "apt-get update -qq"
expect_in "$work/root/apt.log" "apt-get install -y -qq --no-install-recommends ${missing[*]}"

case="no root, sudo without a password"
make_machine "$work/sudo" 1000 nopassword
run_bootstrap "$work/sudo"
[ "$(cat "$work/sudo/rc")" = 0 ] || fail "exit code $(cat "$work/sudo/rc"); expected 0: $(cat "$work/sudo/stderr")"
expect_in "$work/sudo/sudo.log" "sudo apt-get install -y -qq --no-install-recommends ${missing[*]}"
expect_in "$work/sudo/apt.log" "apt-get install -y -qq --no-install-recommends ${missing[*]}"

if [ "$failures" -ne 0 ]; then
  echo "bootstrap_test: $failures failure(s)" >&2
  exit 1
fi
echo "bootstrap_test: all cases pass"
