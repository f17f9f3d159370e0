"""inet/cidr and macaddr functions: masklen, family, network, netmask, broadcast, abbrev, ...

Values are the types' canonical text (see `pgtypes.network`); each function
returns what PostgreSQL 15's network.c / mac.c return, in the same types.
host(inet) is registered with the session functions (sysinfo.py).
"""

from __future__ import annotations

import ipaddress

from ...errors import InvalidParameterValue
from ...pgtypes import network as N
from ...pgtypes import oids as T
from .registry import register


def _net(v: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    ip, bits = N.parts(v)
    return ipaddress.ip_network(f"{ip}/{bits}", strict=False)


def _inet(addr: ipaddress.IPv4Address | ipaddress.IPv6Address, bits: int) -> str:
    return N.parse_inet(f"{addr}/{bits}")


@register("masklen", args=[T.INET], returns=T.INT4)
def masklen(v: str) -> int:
    """The netmask length in bits."""
    return N.parts(v)[1]


@register("family", args=[T.INET], returns=T.INT4)
def family(v: str) -> int:
    """4 for IPv4, 6 for IPv6."""
    return N.parts(v)[0].version


@register("network", args=[T.INET], returns=T.CIDR)
def network(v: str) -> str:
    """The network part of the address (host bits cleared), as cidr."""
    return N.inet_to_cidr(v)


@register("netmask", args=[T.INET], returns=T.INET)
def netmask(v: str) -> str:
    """The netmask as an address."""
    return N.parse_inet(str(_net(v).netmask))


@register("hostmask", args=[T.INET], returns=T.INET)
def hostmask(v: str) -> str:
    """The host mask as an address."""
    return N.parse_inet(str(_net(v).hostmask))


@register("broadcast", args=[T.INET], returns=T.INET)
def broadcast(v: str) -> str:
    """The broadcast address of the network, with the netmask."""
    n = _net(v)
    return _inet(n.broadcast_address, n.prefixlen)


@register("text", args=[T.INET], returns=T.TEXT)
def inet_text(v: str) -> str:
    """The address and netmask as text, the netmask always shown."""
    return N.inet_text(v)


@register("abbrev", args=[T.INET], returns=T.TEXT)
def abbrev_inet(v: str) -> str:
    """The inet's display form (the netmask only when it is not the full width)."""
    return v


@register("abbrev", args=[T.CIDR], returns=T.TEXT)
def abbrev_cidr(v: str) -> str:
    """The cidr in its shortest form: trailing zero octets of an IPv4 network dropped."""
    ip, bits = N.parts(v)
    if ip.version == 6:
        return _abbrev_v6(ip.packed, bits) or v
    octets = str(ip).split(".")
    keep = max((bits + 7) // 8, 1)
    return ".".join(octets[:keep]) + f"/{bits}"


def _abbrev_v6(packed: bytes, bits: int) -> str | None:
    """inet_cidr_ntop_ipv6: the words the prefix covers (at least two), the longest run
    of zero words as '::' (None for an IPv4-embedded form: the cidr's text serves)."""
    words = [packed[i] << 8 | packed[i + 1] for i in range(0, 16, 2)][:max((bits + 15) // 16, 2)]
    if bits == 0:
        return "::/0"
    start = length = run_start = run = 0
    for i, w in enumerate(words):
        if w == 0:
            run_start, run = (i, 1) if run == 0 else (run_start, run + 1)
            if run > length:
                start, length = run_start, run
        else:
            run = 0
    if length != len(words) and start == 0 and length in (5, 6, 7):
        return None
    out = []
    for i, w in enumerate(words):
        if length and start <= i < start + length:
            if i == start:
                out.append(":")
            if i == len(words) - 1:
                out.append(":")
            continue
        if i:
            out.append(":")
        out.append(f"{w:x}")
    return "".join(out) + f"/{bits}"


def _set_masklen(v: str, bits: int, cidr: bool) -> str:
    ip, _ = N.parts(v)
    width = 32 if ip.version == 4 else 128
    if bits == -1:
        bits = width
    if not 0 <= bits <= width:
        raise InvalidParameterValue(f"invalid mask length: {bits}")
    if cidr:
        n = ipaddress.ip_network(f"{ip}/{bits}", strict=False)
        return f"{N.parse_inet(str(n.network_address))}/{bits}"
    return _inet(ip, bits)


@register("set_masklen", args=[T.INET, T.INT4], returns=T.INET)
def set_masklen_inet(v: str, bits: int) -> str:
    """The address with another netmask length."""
    return _set_masklen(v, bits, False)


@register("set_masklen", args=[T.CIDR, T.INT4], returns=T.CIDR)
def set_masklen_cidr(v: str, bits: int) -> str:
    """The network with another netmask length (host bits cleared)."""
    return _set_masklen(v, bits, True)


@register("inet_merge", args=[T.INET, T.INET], returns=T.CIDR)
def inet_merge(a: str, b: str) -> str:
    """The smallest network that includes both addresses."""
    return N.merge(a, b)


@register("inet_same_family", args=[T.INET, T.INET], returns=T.BOOL)
def inet_same_family(a: str, b: str) -> bool:
    """Are both addresses of the same family?"""
    return N.parts(a)[0].version == N.parts(b)[0].version


@register("trunc", args=[T.MACADDR], returns=T.MACADDR)
def trunc_macaddr(v: str) -> str:
    """The address with its last three bytes zeroed (the manufacturer's prefix)."""
    return v[:8] + ":00:00:00"


@register("trunc", args=[T.MACADDR8], returns=T.MACADDR8)
def trunc_macaddr8(v: str) -> str:
    """The address with its last five bytes zeroed."""
    return v[:8] + ":00:00:00:00:00"


@register("macaddr8_set7bit", args=[T.MACADDR8], returns=T.MACADDR8)
def macaddr8_set7bit(v: str) -> str:
    """The address with the 7th bit of its first byte set (a modified EUI-64)."""
    return f"{int(v[:2], 16) | 2:02x}" + v[2:]
