#!/usr/bin/env python3
"""The soak's traffic (bench/soak.sh), run inside its namespace: CONNS clients, each
from its own loopback address (a peer each in the path table), fetch responses of
1 KB-256 KB from one server on persistent connections with think times of 0-2 s (idle
restarts), and reconnect every few responses (new flows: lookups, jumps, stores).
Prints a JSON summary: responses, errors by kind, and the clients whose response was
still unfinished when the run ended (stuck: more than STUCK_S without a byte). The
server is a process of its own: each end of 10,000 connections needs its descriptors.
Usage: soak_traffic.py server | soak_traffic.py clients CONNS SECONDS"""
import asyncio, collections, json, random, resource, sys, time

PORT = 9000
STUCK_S = 30.0


def client_addr(i):
    return f"127.{1 + (i >> 16)}.{(i >> 8) & 255}.{i & 255 or 1}"


async def serve(reader, writer):
    try:
        while True:
            line = await reader.readline()
            if not line:
                break
            size = int(line)
            writer.write(b"x" * size)
            await writer.drain()
    except (ConnectionError, ValueError):
        pass
    finally:
        writer.close()


async def client(i, deadline, stats, progress, rng):
    while time.monotonic() < deadline:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", PORT, local_addr=(client_addr(i), 0))
        except OSError as e:
            stats[f"connect_error:{type(e).__name__}:{e.errno}"] += 1
            await asyncio.sleep(1)
            continue
        try:
            for _ in range(rng.randint(1, 8)):
                if time.monotonic() >= deadline:
                    break
                size = rng.randint(1024, 256 * 1024)
                writer.write(b"%d\n" % size)
                await writer.drain()
                got = 0
                progress[i] = time.monotonic()
                while got < size:
                    chunk = await reader.read(size - got)
                    if not chunk:
                        raise ConnectionError("closed mid-response")
                    got += len(chunk)
                    progress[i] = time.monotonic()
                progress.pop(i, None)
                stats["responses"] += 1
                stats["bytes"] += size
                await asyncio.sleep(rng.uniform(0, 2))
        except (ConnectionError, OSError) as e:
            stats[f"error:{type(e).__name__}:{getattr(e, 'errno', None)}"] += 1
            progress.pop(i, None)
        finally:
            writer.close()


def raise_fd_limit():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


async def run_server():
    raise_fd_limit()
    server = await asyncio.start_server(serve, "127.0.0.1", PORT, backlog=4096)
    async with server:
        await server.serve_forever()


async def run_clients(conns, seconds):
    raise_fd_limit()
    stats, progress = collections.Counter(), {}
    deadline = time.monotonic() + seconds
    rng = random.Random(7)
    tasks = [asyncio.create_task(client(i, deadline, stats, progress, random.Random(rng.random()))) for i in range(conns)]
    last = time.monotonic()
    while time.monotonic() < deadline + STUCK_S:
        await asyncio.sleep(5)
        if all(t.done() for t in tasks):
            break
        if time.monotonic() - last >= 60:
            last = time.monotonic()
            print(f"soak traffic: {stats['responses']} responses, {len(progress)} in flight", file=sys.stderr, flush=True)
    now = time.monotonic()
    stuck = sorted(i for i, t in progress.items() if now - t > STUCK_S)
    for t in tasks:
        t.cancel()
    print(json.dumps({"conns": conns, "seconds": seconds, "stats": dict(stats), "stuck": len(stuck), "stuck_clients": stuck[:20]}))


if __name__ == "__main__":
    if sys.argv[1:2] == ["server"]:
        asyncio.run(run_server())
    elif sys.argv[1:2] == ["clients"] and len(sys.argv) == 4:
        asyncio.run(run_clients(int(sys.argv[2]), float(sys.argv[3])))
    else:
        sys.exit(__doc__)
