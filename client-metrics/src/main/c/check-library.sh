#!/bin/sh
# Checks a built libtcpsight.so against the C libraries it must load with, from its dynamic
# symbols alone (readelf reads any architecture), so an aarch64 library is checked on x86_64:
#  - bound at load (-z now): a symbol a C library lacks is then an UnsatisfiedLinkError, not a
#    JVM killed at its first call (musl's loader defers it under the JVM's lazy dlopen);
#  - no glibc symbol version newer than 2.17, so that it loads on RHEL 8, Ubuntu 20.04 or Amazon
#    Linux 2 as on this build machine (fstat@GLIBC_2.33 once made it need glibc 2.33);
#  - with musl's libc.so named: every symbol it needs is one musl defines. musl's loader maps
#    libc.so.6 to itself and ignores glibc's symbol versions, so such a library loads on Alpine.
#    A symbol musl defines under the same name but with another meaning (GNU strerror_r) is not
#    seen here; the shim's C test runs against the library under musl for that.
# Usage: check-library.sh LIBRARY [MUSL_LIBC_SO]
set -eu
library=$1
musl=${2:-}
max_glibc=2.17
failed=0

if ! readelf -d "$library" | grep -q 'BIND_NOW'; then
  echo "check-library: $library is not bound at load: link it with -Wl,-z,now" >&2
  failed=1
fi

# Undefined, non-weak dynamic symbols as name@version (version empty when unversioned).
needed=$(readelf -W --dyn-syms "$library" | awk '$7 == "UND" && $5 == "GLOBAL" && $8 != "" { print $8 }')

too_new=$(echo "$needed" | awk -v max="$max_glibc" -F'@' '
  $2 ~ /^GLIBC_[0-9]/ {
    split(substr($2, 7), v, "."); split(max, m, ".")
    if (v[1] + 0 > m[1] + 0 || (v[1] + 0 == m[1] + 0 && v[2] + 0 > m[2] + 0)) print $1 "@" $2
  }')
if [ -n "$too_new" ]; then
  echo "check-library: $library needs glibc newer than $max_glibc for:" $too_new >&2
  failed=1
fi

if [ -n "$musl" ]; then
  defined=$(readelf -W --dyn-syms "$musl" | awk '$7 != "UND" && ($5 == "GLOBAL" || $5 == "WEAK") { sub(/@.*/, "", $8); print $8 }')
  missing=$(echo "$needed" | sed 's/@.*//' | sort -u | while read -r symbol; do
    echo "$defined" | grep -qx "$symbol" || echo "$symbol"
  done)
  if [ -n "$missing" ]; then
    echo "check-library: $library needs what musl ($musl) does not define, so it would not load on Alpine:" $missing >&2
    failed=1
  fi
fi
exit $failed
