"""The TCP sockets a set of processes listens on, read from ``/proc`` as ``ss -ltnp`` reads them (Linux).

:func:`listening` maps each listening socket (``/proc/net/tcp`` and ``tcp6``, state ``0A``) to the
processes holding it (the ``socket:[inode]`` links in ``/proc/<pid>/fd``); :func:`loopback` tells an
address bound to the loopback range (127.0.0.0/8, ``::1``, ``::ffff:127.x.x.x``) from one reachable from
elsewhere (``*``, ``::``, the machine's address). The Ray runner checks the local instance it starts with
them (docs/security.md: listeners on loopback only).
"""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass

_LISTEN = "0A"


@dataclass(frozen=True)
class Listener:
    pid: int
    name: str  # the process's name (``/proc/<pid>/comm``)
    address: str  # as ``ss`` writes it: ``127.0.0.1:4567``, ``[::1]:4567``, ``*:4567``

    @property
    def on_loopback(self) -> bool:
        return loopback(self.address.rsplit(":", 1)[0].strip("[]"))


def loopback(host: str) -> bool:
    """True for an address in the loopback range (an IPv4-mapped one included); False for ``*`` too."""
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


def _host(hexaddr: str) -> str:
    """A ``/proc/net/tcp*`` address (hex, 32-bit words in host order, little-endian here) as text."""
    raw = bytes.fromhex(hexaddr)
    data = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
    ip = ipaddress.ip_address(data)
    if ip.is_unspecified:
        return "*"
    return str(ip) if ip.version == 4 else f"[{ip}]"


def _sockets() -> dict[str, str]:
    """Listening TCP sockets: inode -> address (``host:port``)."""
    found: dict[str, str] = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table, encoding="ascii") as fh:
                lines = fh.read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) > 9 and fields[3] == _LISTEN:
                addr, port = fields[1].split(":")
                found[fields[9]] = f"{_host(addr)}:{int(port, 16)}"
    return found


def _inodes(pid: int) -> set[str]:
    out: set[str] = set()
    folder = f"/proc/{pid}/fd"
    try:
        names = os.listdir(folder)
    except OSError:
        return out
    for name in names:
        try:
            target = os.readlink(os.path.join(folder, name))
        except OSError:
            continue
        if target.startswith("socket:["):
            out.add(target[8:-1])
    return out


def _name(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm", encoding="utf-8", errors="replace") as fh:
            return fh.read().strip()
    except OSError:
        return "?"


def listening(pids: list[int]) -> list[Listener]:
    """Every listening TCP socket held by one of ``pids``, sorted by pid and address."""
    sockets = _sockets()
    out = {Listener(pid, _name(pid), sockets[inode]) for pid in pids for inode in _inodes(pid) if inode in sockets}
    return sorted(out, key=lambda x: (x.pid, x.address))
