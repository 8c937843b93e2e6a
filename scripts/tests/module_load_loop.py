#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The loop of module_load_loop.sh: load and unload kiw N times, every tenth
# time with a device on each host (netns a and b, from kiw_hosts_up), and
# check after each unload that no RDMA device is left. One process does it
# all with finit_module(2) and delete_module(2), the calls insmod and rmmod
# make: under TCG, starting 200 programs would cost minutes. The device
# rounds load with modprobe and use rdma(8), as a user would.
#
# Usage: module_load_loop.py KO [CYCLES]
# Prints "PASS desc" / "FAIL desc" per round of ten (and its time on a line
# of its own), then "DONE".

import ctypes
import os
import subprocess
import sys
import time

SYS_FINIT_MODULE = 313
SYS_DELETE_MODULE = 176

libc = ctypes.CDLL(None, use_errno=True)


def load(ko):
    fd = os.open(ko, os.O_RDONLY | os.O_CLOEXEC)
    try:
        if libc.syscall(SYS_FINIT_MODULE, fd, b"", 0) != 0:
            err = ctypes.get_errno()
            raise OSError(err, "finit_module: " + os.strerror(err))
    finally:
        os.close(fd)


def unload(name):
    # O_NONBLOCK, as rmmod does: fail with EBUSY rather than wait.
    if libc.syscall(SYS_DELETE_MODULE, name.encode(), os.O_NONBLOCK) != 0:
        err = ctypes.get_errno()
        raise OSError(err, "delete_module: " + os.strerror(err))


def run(*cmd):
    subprocess.run(cmd, check=True, capture_output=True, text=True)


def devices():
    try:
        return sorted(os.listdir("/sys/class/infiniband"))
    except FileNotFoundError:
        return []


def port_state(dev):
    with open(f"/sys/class/infiniband/{dev}/ports/1/state") as f:
        return f.read().split(":")[-1].strip()


def with_devices():
    """One cycle as a user makes it: modprobe, a device per host, rmmod."""
    run("modprobe", "kiw")
    run("ip", "netns", "exec", "a", "rdma", "link", "add", "kiw_a",
        "type", "kiw", "netdev", "veth-a")
    run("ip", "netns", "exec", "b", "rdma", "link", "add", "kiw_b",
        "type", "kiw", "netdev", "veth-b")
    if port_state("kiw_a") != "ACTIVE":
        raise RuntimeError("kiw_a is " + port_state("kiw_a") + ", not ACTIVE")
    unload("kiw")


def main():
    ko = sys.argv[1]
    cycles = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    for first in range(1, cycles + 1, 10):
        last = min(first + 9, cycles)
        desc = f"cycles {first}-{last}: load/unload, the last with devices"
        start = time.monotonic()
        try:
            for i in range(first, last + 1):
                if i == last:
                    with_devices()
                else:
                    load(ko)
                    unload("kiw")
                left = devices()
                if left:
                    raise RuntimeError(f"cycle {i}: left behind: {left}")
        except (OSError, RuntimeError, subprocess.CalledProcessError) as e:
            detail = getattr(e, "stderr", None) or str(e)
            print(f"FAIL {desc} (cycle {i}: {detail.strip()})", flush=True)
            return 1
        print(f"PASS {desc}", flush=True)
        print(f"  ({time.monotonic() - start:.1f} s)", flush=True)
    print("DONE", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
