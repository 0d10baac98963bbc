#!/usr/bin/env python3
"""Turns a server-side tcpdump text capture (tcpdump -tt -n -S) of lab flows into one
ACK train per flow, the input of the GCBE host tests (tests/c/data/):
ACK time us, bytes newly acked, send time of the newest acked data us (0: unknown),
smoothed RTT us (RFC 6298's 1/8 gain over those samples). Flows whose handshake was
not captured are left out. Usage: ack_trains.py CAPTURE.txt OUTPREFIX"""
import collections
import re
import sys

LINE = re.compile(r'^(\d+\.\d+) IP6? (\S+) > (\S+): Flags \[([^\]]*)\](.*)$')


def main(capture, prefix):
    sent = collections.defaultdict(dict)      # client port -> end seq -> last send time
    acks = collections.defaultdict(list)      # client port -> [(time, ack)]
    handshake = set()
    for line in open(capture):
        m = LINE.match(line)
        if not m:
            continue
        t, src, dst, flags, rest = float(m.group(1)), m.group(2), m.group(3), m.group(4), m.group(5)
        server_side = src.startswith('10.77.0.1.') or src.startswith('fd77::1.')
        port = (dst if server_side else src).rsplit('.', 1)[1].rstrip(':')
        if server_side:
            if 'S' in flags:
                handshake.add(port)
            s = re.search(r' seq (\d+):(\d+)', rest)
            if s and int(s.group(2)) > int(s.group(1)):
                sent[port][int(s.group(2))] = t
        else:
            a = re.search(r' ack (\d+)', rest)
            if a and 'S' not in flags:
                acks[port].append((t, int(a.group(1))))
    n = 0
    for port, lst in acks.items():
        if port not in handshake or len(sent[port]) < 50:
            continue
        ends = sorted(sent[port])
        t0 = lst[0][0] - 1.0
        last, srtt = None, None
        with open(f'{prefix}.{n}.acks', 'w') as out:
            out.write(f'# client port {port}, from {capture}\n')
            for t, ack in lst:
                if last is None or ack <= last:
                    last = ack if last is None else last
                    continue
                end = max((e for e in ends if e <= ack), default=None)
                when = sent[port][end] if end is not None else None
                if when is not None:
                    rtt = (t - when) * 1e6
                    srtt = rtt if srtt is None else srtt + (rtt - srtt) / 8
                out.write(f'{round((t - t0) * 1e6)} {ack - last} {round((when - t0) * 1e6) if when else 0} {round(srtt or 0)}\n')
                last = ack
        n += 1
    print(f'{n} flows -> {prefix}.N.acks')


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
