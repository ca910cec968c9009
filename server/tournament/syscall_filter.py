"""The seccomp filter every process of a sandboxed entry runs under.

bubblewrap loads it (``--seccomp FD``, a compiled BPF program) just before it starts the
entry, after ``no_new_privs``: every process of the entry inherits it and none can remove it.
It refuses (``EPERM``) the system calls a bot never needs and that an escape does: reaching
files by handle (``open_by_handle_at``, the call that walked out of a bind mount), mounting,
namespaces, tracing or reading other processes, kernel modules and keys, BPF, performance
counters, ``userfaultfd`` and ``io_uring`` (favourite tools of kernel exploits), swap,
reboot, accounting and quotas. ``clone3`` answers ``ENOSYS`` (its flags cannot be inspected,
and the C library then falls back to ``clone``, whose namespace flags are refused). A call of
another ABI (32-bit x86 through ``int 0x80``, x32) kills the process: the filter names
64-bit calls only, and another ABI would go around it.

The BPF is built by libseccomp (``pyseccomp``, a ctypes binding of ``libseccomp.so.2``), the
library every container runtime uses, rather than by hand.

>>> program = bpf()
>>> len(program) % 8, len(program) > 100
(0, True)
"""

from __future__ import annotations

import errno
import functools
import tempfile

from levata.engine import BadConfig

__all__ = ["CLONE_NAMESPACES", "REFUSED", "bpf"]

#: System calls refused with EPERM, by what they would give an entry.
REFUSED = (
    # files by handle: the way out of a bind mount
    "open_by_handle_at", "name_to_handle_at",
    # mounts and the root
    "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen",
    "fsconfig", "fsmount", "fspick", "mount_setattr",
    # namespaces (bwrap's own sandbox is already built)
    "unshare", "setns",
    # other processes
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    # the kernel itself
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
    "bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter",
    "io_uring_register", "keyctl", "add_key", "request_key", "lookup_dcookie", "syslog",
    "iopl", "ioperm", "uselib", "vhangup", "acct", "quotactl", "quotactl_fd",
    "swapon", "swapoff", "reboot", "settimeofday", "clock_settime", "clock_adjtime",
    "adjtimex", "sethostname", "setdomainname", "fanotify_init", "nfsservctl",
)  # fmt: skip
#: ``clone`` flags that make a namespace: refused.
CLONE_NAMESPACES = (
    0x00020000,  # CLONE_NEWNS
    0x02000000,  # CLONE_NEWCGROUP
    0x04000000,  # CLONE_NEWUTS
    0x08000000,  # CLONE_NEWIPC
    0x10000000,  # CLONE_NEWUSER
    0x20000000,  # CLONE_NEWPID
    0x40000000,  # CLONE_NEWNET
    0x00000080,  # CLONE_NEWTIME
)


@functools.cache
def bpf() -> bytes:
    """The filter as a BPF program for bwrap's ``--seccomp``; :class:`BadConfig` when
    libseccomp is missing (the sandbox would then be weaker than it says)."""
    try:
        import pyseccomp as sc
    except (ImportError, OSError) as exc:
        raise BadConfig(
            f"cannot build the sandbox's system call filter ({exc}): install libseccomp2"
            " (apt-get install libseccomp2), or pass --sandbox none"
        ) from None
    f = sc.SyscallFilter(sc.ALLOW)
    f.set_attr(sc.Attr.ACT_BADARCH, sc.KILL_PROCESS)  # another ABI: no way around the list
    for name in REFUSED:
        try:
            f.add_rule(sc.ERRNO(errno.EPERM), name)
        except ValueError:  # a call this kernel's headers do not know: nobody can make it
            continue
    f.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    for flag in CLONE_NAMESPACES:
        f.add_rule(sc.ERRNO(errno.EPERM), "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
    with tempfile.TemporaryFile() as out:
        f.export_bpf(out)
        out.seek(0)
        return out.read()
