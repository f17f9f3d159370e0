"""inet, cidr, macaddr and macaddr8: input, output and binary formats as PostgreSQL's network.c / mac.c.

Values are their canonical text (`str`), the form PostgreSQL prints, so they
store, compare for equality, hash and travel as strings; the binary send and
receive functions translate to and from PostgreSQL's struct layout:

- inet/cidr: family (2 = IPv4, 3 = IPv6), netmask bits, is_cidr, address
  length, address bytes;
- macaddr: 6 bytes, macaddr8: 8 bytes.

An inet prints its netmask only when it is not the full width (`10.0.0.1`,
`10.0.0.1/8`); a cidr always prints it and rejects bits right of the mask.

>>> parse_inet("192.168.1.5/24"), parse_inet("::ffff:1.2.3.4"), parse_cidr("10.1")
('192.168.1.5/24', '::ffff:1.2.3.4', '10.1.0.0/16')
>>> parse_macaddr("0800.2b01.0203"), parse_macaddr8("08-00-2b-01-02-03")
('08:00:2b:01:02:03', '08:00:2b:ff:fe:01:02:03')
>>> encode_inet("192.168.1.5/24")
b'\\x02\\x18\\x00\\x04\\xc0\\xa8\\x01\\x05'
"""

from __future__ import annotations

import ipaddress
import re
from typing import Any

from ..errors import InvalidBinaryRepresentation, InvalidTextRepresentation, SQLError

INET, CIDR, MACADDR, MACADDR8 = 869, 650, 829, 774
_AF_INET, _AF_INET6 = 2, 3


def _bad(kind: str, s: str) -> SQLError:
    return InvalidTextRepresentation(f'invalid input syntax for type {kind}: "{s}"')


def _v6_text(a: ipaddress.IPv6Address) -> str:
    """IPv6 as PostgreSQL prints it: an embedded IPv4 tail in dotted form (::ffff:1.2.3.4)."""
    if a.ipv4_mapped is not None:
        return f"::ffff:{a.ipv4_mapped}"
    packed = a.packed
    if packed[:12] == bytes(12) and packed[12:14] != b"\x00\x00":  # ::1.2.3.4 (compatible)
        return f"::{ipaddress.IPv4Address(packed[12:])}"
    return a.compressed


def _split(s: str, kind: str) -> tuple[ipaddress.IPv4Address | ipaddress.IPv6Address, int | None]:
    t = s.strip()
    addr, _, bits = t.partition("/")
    try:
        ip = ipaddress.ip_address(addr)
    except ValueError:
        raise _bad(kind, s) from None
    width = 32 if ip.version == 4 else 128
    if bits:
        if not bits.isdigit() or int(bits) > width:
            raise _bad(kind, s)
        return ip, int(bits)
    return ip, None


def _text(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
    return _v6_text(ip) if isinstance(ip, ipaddress.IPv6Address) else str(ip)


def parse_inet(s: str) -> str:
    """inet_in: an address with an optional netmask, printed canonically."""
    ip, bits = _split(s, "inet")
    width = 32 if ip.version == 4 else 128
    return _text(ip) if bits is None or bits == width else f"{_text(ip)}/{bits}"


def _classful(s: str) -> str:
    """cidr's abbreviated IPv4 input: '10.1' -> '10.1.0.0/16', '192.168.1' -> '/24'."""
    t = s.strip()
    addr, slash, bits = t.partition("/")
    if ":" in addr or addr.count(".") == 3:
        return t
    parts = addr.split(".")
    if not all(p.isdigit() for p in parts) or not 1 <= len(parts) <= 4:
        return t
    first = int(parts[0])
    # classful: A /8, B /16, C /24, D (multicast) /4, above that /32
    classful = 8 if first < 128 else 16 if first < 192 else 24 if first < 224 else \
        4 if first < 240 else 32
    default = 4 if classful == 4 and len(parts) == 1 else \
        max(0 if classful == 4 else classful, 8 * len(parts))
    full = ".".join(parts + ["0"] * (4 - len(parts)))
    return f"{full}/{bits if slash else default}"


def parse_cidr(s: str) -> str:
    """cidr_in: a network; 22P02 when bits are set right of the mask."""
    ip, bits = _split(_classful(s), "cidr")
    width = 32 if ip.version == 4 else 128
    bits = width if bits is None else bits
    net = ipaddress.ip_network(f"{ip}/{bits}", strict=False)
    if net.network_address != ip:
        raise InvalidTextRepresentation(f'invalid cidr value: "{s}"',
                                        detail="Value has bits set to right of mask.")
    return f"{_text(ip)}/{bits}"


def inet_to_cidr(v: str) -> str:
    """cidr(inet): the address with the host bits cleared."""
    ip, bits = _split(v, "inet")
    width = 32 if ip.version == 4 else 128
    net = ipaddress.ip_network(f"{ip}/{width if bits is None else bits}", strict=False)
    return f"{_text(net.network_address)}/{net.prefixlen}"


def parts(v: str) -> tuple[ipaddress.IPv4Address | ipaddress.IPv6Address, int]:
    """(address, netmask bits) of an inet or cidr text."""
    ip, bits = _split(v, "inet")
    return ip, (32 if ip.version == 4 else 128) if bits is None else bits


def encode_inet(v: str, is_cidr: bool = False) -> bytes:
    ip, bits = parts(v)
    packed = ip.packed
    return bytes((_AF_INET if ip.version == 4 else _AF_INET6, bits, int(is_cidr), len(packed))) + packed


def decode_inet(b: bytes) -> str:
    if len(b) < 4 or b[0] not in (_AF_INET, _AF_INET6) or len(b) != 4 + b[3]:
        raise InvalidBinaryRepresentation("invalid address family in external \"inet\" value")
    ip = ipaddress.ip_address(bytes(b[4:]))
    width = 32 if ip.version == 4 else 128
    if b[1] > width:
        raise InvalidBinaryRepresentation("invalid bits in external \"inet\" value")
    text = _text(ip)
    return f"{text}/{b[1]}" if b[2] or b[1] != width else text


_MAC_SEP = re.compile(r"[:\-.]")


def _mac_hex(s: str, n: int, kind: str) -> str:
    t = s.strip()
    digits = _MAC_SEP.sub("", t)
    groups = [g for g in _MAC_SEP.split(t)]
    ok = len(digits) == 2 * n and all(c in "0123456789abcdefABCDEF" for c in digits)
    if ok and len(groups) > 1:  # separators must split the digits evenly
        ok = len({len(g) for g in groups}) == 1 and len(_MAC_SEP.findall(t)) == len(groups) - 1
    if not ok:
        raise _bad(kind, s)
    return digits.lower()


def parse_macaddr(s: str) -> str:
    """macaddr_in: the six bytes in any of PostgreSQL's spellings, printed xx:xx:xx:xx:xx:xx."""
    h = _mac_hex(s, 6, "macaddr")
    return ":".join(h[i:i + 2] for i in range(0, 12, 2))


def parse_macaddr8(s: str) -> str:
    """macaddr8_in: eight bytes, or six (EUI-48, widened with ff:fe in the middle)."""
    t = _MAC_SEP.sub("", s.strip())
    h = _mac_hex(s, 6, "macaddr8") if len(t) == 12 else _mac_hex(s, 8, "macaddr8")
    if len(h) == 12:
        h = h[:6] + "fffe" + h[6:]
    return ":".join(h[i:i + 2] for i in range(0, 16, 2))


def macaddr_to_macaddr8(v: str) -> str:
    return parse_macaddr8(v)


def macaddr8_to_macaddr(v: str) -> str:
    h = v.replace(":", "")
    if h[6:10] != "fffe":
        raise InvalidTextRepresentation(
            "macaddr8 data out of range to convert to macaddr",
            hint="Only addresses that have FF and FE as values in the 4th and 5th bytes from the "
            "left, for example xx:xx:xx:ff:fe:xx:xx:xx, are eligible to be converted from "
            "macaddr8 to macaddr.", sqlstate="22003")
    return parse_macaddr(h[:6] + h[10:])


def encode_mac(v: str) -> bytes:
    return bytes.fromhex(v.replace(":", ""))


def mac_decoder(n: int):  # noqa: ANN201 - a Decoder
    def dec(b: bytes) -> str:
        if len(b) != n:
            raise InvalidBinaryRepresentation("insufficient data left in message")
        return ":".join(f"{x:02x}" for x in b)

    return dec


TEXT_INPUT = {INET: parse_inet, CIDR: parse_cidr, MACADDR: parse_macaddr, MACADDR8: parse_macaddr8}


def inet_text(v: str) -> str:
    """text(inet): always with the netmask ('10.0.0.1/32')."""
    return v if "/" in v else f"{v}/{parts(v)[1]}"


def _net(v: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    ip, bits = parts(v)
    return ipaddress.ip_network(f"{ip}/{bits}", strict=False)


def contained(a: str, b: str, equal_ok: bool) -> bool:
    """a << b (a within b, strictly) and a <<= b (or equal)."""
    na, nb = _net(a), _net(b)
    if na.version != nb.version:
        return False
    if na.prefixlen < nb.prefixlen or (na.prefixlen == nb.prefixlen and not equal_ok):
        return False
    return na.subnet_of(nb)  # type: ignore[arg-type]


def overlaps(a: str, b: str) -> bool:
    """a && b: either contains the other."""
    na, nb = _net(a), _net(b)
    return na.version == nb.version and na.overlaps(nb)


def sort_key(v: str) -> tuple[int, int, int, int]:
    """PostgreSQL's btree order of inet/cidr (network_cmp): IPv4 before IPv6, then the
    network part, a shorter netmask first, then the whole address.

    network_cmp compares the first min(bits) bits, then the bits, then the address; the
    masked network, then the bits, orders the same way as one key.

    >>> sorted(["::1", "192.168.1.5", "192.168.1.5/16", "10.0.0.1", "192.168.1.5/24"], key=sort_key)
    ['10.0.0.1', '192.168.1.5/16', '192.168.1.5/24', '192.168.1.5', '::1']
    """
    ip, bits = parts(v)
    width = 32 if ip.version == 4 else 128
    addr = int(ip)
    net = addr >> (width - bits) << (width - bits) if bits else 0
    return (ip.version, net, bits, addr)


def _inet(ip_int: int, version: int, bits: int) -> str:
    width = 32 if version == 4 else 128
    if not 0 <= ip_int < 1 << width:
        raise SQLError("result is out of range", sqlstate="22003")
    ip = ipaddress.ip_address(ip_int) if version == 4 else ipaddress.IPv6Address(ip_int)
    return _text(ip) if bits == width else f"{_text(ip)}/{bits}"


def plus(v: str, n: int) -> str:
    """inet + bigint (and inet - bigint with -n): the address moved, the netmask kept.

    >>> plus("192.168.1.250/24", 10), plus("::1", -1)
    ('192.168.2.4/24', '::')
    """
    ip, bits = parts(v)
    return _inet(int(ip) + n, ip.version, bits)


def _pair(a: str, b: str, what: str) -> tuple[Any, int, Any, int]:
    ia, ba = parts(a)
    ib, bb = parts(b)
    if ia.version != ib.version:
        raise SQLError(f"cannot {what} inet values of different sizes", sqlstate="22023")
    return ia, ba, ib, bb


def minus(a: str, b: str) -> int:
    """inet - inet: the difference of the addresses (22023 across families)."""
    ia, _, ib, _ = _pair(a, b, "subtract")
    return int(ia) - int(ib)


def bit_and(a: str, b: str) -> str:
    """inet & inet: the addresses ANDed, the wider netmask (PG's inetand)."""
    ia, ba, ib, bb = _pair(a, b, "AND")
    return _inet(int(ia) & int(ib), ia.version, max(ba, bb))


def bit_or(a: str, b: str) -> str:
    """inet | inet: the addresses ORed, the wider netmask (PG's inetor)."""
    ia, ba, ib, bb = _pair(a, b, "OR")
    return _inet(int(ia) | int(ib), ia.version, max(ba, bb))


def bit_not(v: str) -> str:
    """~inet: every address bit flipped, the netmask kept.

    >>> bit_not("192.168.1.5")
    '63.87.254.250'
    """
    ip, bits = parts(v)
    width = 32 if ip.version == 4 else 128
    return _inet(~int(ip) & ((1 << width) - 1), ip.version, bits)


def merge(a: str, b: str) -> str:
    """inet_merge: the smallest network holding both (a cidr).

    >>> merge("192.168.1.5/24", "192.168.2.5/16")
    '192.168.0.0/16'
    """
    ia, ba = parts(a)
    ib, bb = parts(b)
    if ia.version != ib.version:
        raise SQLError("cannot merge addresses from different families", sqlstate="22023")
    width = 32 if ia.version == 4 else 128
    diff = int(ia) ^ int(ib)
    common = width - diff.bit_length()
    bits = min(ba, bb, common)
    net = int(ia) >> (width - bits) << (width - bits) if bits else 0
    ip = ipaddress.ip_address(net) if ia.version == 4 else ipaddress.IPv6Address(net)
    return f"{_text(ip)}/{bits}"
