#!/bin/bash
# rung06_len_prep.sh DIR [CACHE_FROM] - on the CPU machine, from the project
# root after `make`: the tree tests/bench/rung06_len_gpu.sh runs in on the
# H200 (copy it into a git-excluded folder of the checkout the device
# copies).  Holds the harness and ktraj builds with ktraj's libraries, the
# kernels with the ladder's extra rungs (06a: rung 06 before the persistent
# grid, 722c660^; 06P: the committed 06; 06L: 06 with rung06_bylen.patch),
# the scripts, the acceptance script, and a --cache of compiled objects:
# rung 03's takes about 13 minutes of nvcc here and would cost as much
# device time, so every object not found in CACHE_FROM is compiled here
# (same flags and nvcc as the harness; the harness finds them by key).
set -eu
D=${1:?dir}
FROM=${2:-}
A=kernels/attention_fwd
mkdir -p "$D"/build/harness "$D"/lib "$D"/cache "$D"/tests/bench "$D"/acc
cp build/harness/ktraj-harness "$D"/build/harness/
cp build/ktraj "$D"/
for l in $(ldd build/ktraj | awk '/=>/ {print $3}'); do
	case ${l##*/} in libc.so* | libm.so* | libpthread.so* | libgcc_s* | libstdc++* | ld-linux*) ;;
	*) cp -L "$l" "$D"/lib/ ;; esac
done
rm -rf "$D"/kernels && cp -r kernels "$D"/
cp -r tests/harness "$D"/tests/
cp tests/bench/rung06_*gpu.sh tests/bench/ladder_plan.txt "$D"/tests/bench/
cp ../shared/acceptance/harness.sh ../shared/acceptance/lib.sh "$D"/acc/
git show 722c660^:$A/06_wgmma_tma.cu >"$D"/$A/06a_wgmma_tma_grid.cu
cp $A/06_wgmma_tma.cu "$D"/$A/06P.cu
patch -s -o "$D"/$A/06L.cu $A/06_wgmma_tma.cu <tests/bench/rung06_bylen.patch
# the harness's cache key (harness/main.c compile()): FNV-1a over the
# source, its nvcc flags but -I (each with its NUL) and nvcc's release line
VER=$(nvcc --version | grep -i release | tail -1)
FLAGS="-shared -Xcompiler -fPIC -O3 -std=c++17 -cudart shared -lineinfo -Xptxas -v -gencode=arch=compute_90a,code=sm_90a"
for f in "$D"/$A/*.cu; do
	k=$(python3 - "$f" "$VER" $FLAGS <<'PY'
import sys
h = 0xcbf29ce484222325
def fnv(b):
    global h
    for c in b:
        h = ((h ^ c) * 0x100000001b3) & 0xffffffffffffffff
fnv(open(sys.argv[1], "rb").read())
for a in sys.argv[3:]:
    fnv(a.encode() + b"\0")
fnv(sys.argv[2].encode())
print("%016x" % h)
PY
)
	[ -f "$D/cache/$k.so" ] && continue
	if [ -n "$FROM" ] && [ -f "$FROM/$k.so" ]; then cp "$FROM/$k.so" "$D/cache/"; continue; fi
	echo "compiling ${f##*/} ($k)"
	nice nvcc $FLAGS -I"$D"/kernels/include -o "$D/cache/$k.so" "$f" >"$D/cache/$k.ptxas" 2>&1
done
du -sh "$D"
