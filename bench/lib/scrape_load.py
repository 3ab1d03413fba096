#!/usr/bin/env python3
"""Load for `truebench serve`: RATE scrapes of /metrics per second (each a new connection,
as Prometheus' scrapes of many targets arrive) and SLOW clients that send their request one
byte per second (a slowloris; each reconnects when the server cuts it), for SECONDS.
Prints the scrapes answered, failed and the slow clients' reconnections.

    scrape_load.py PORT RATE SLOW SECONDS
"""
import asyncio
import sys
import time

REQUEST = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: scrape_load\r\n\r\n"


async def scrape(port, stats):
    try:
        r, w = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 5)
        w.write(REQUEST)
        await w.drain()
        head = await asyncio.wait_for(r.read(), 10)
        stats["ok" if head.startswith(b"HTTP/1.1 200") else "failed"] += 1
        w.close()
    except Exception:
        stats["failed"] += 1


async def slow(port, end, stats):
    while time.monotonic() < end:
        try:
            r, w = await asyncio.open_connection("127.0.0.1", port)
            for b in REQUEST:
                if time.monotonic() >= end:
                    break
                w.write(bytes([b]))
                await w.drain()
                await asyncio.sleep(1.0)
            w.close()
        except Exception:
            pass
        stats["reconnects"] += 1
        await asyncio.sleep(0.1)


async def main(port, rate, n_slow, seconds):
    stats = {"ok": 0, "failed": 0, "reconnects": 0}
    end = time.monotonic() + seconds
    slows = [asyncio.create_task(slow(port, end, stats)) for _ in range(n_slow)]
    pending = set()
    t = time.monotonic()
    while t < end:
        pending.add(asyncio.create_task(scrape(port, stats)))
        pending = {p for p in pending if not p.done()}
        t += 1.0 / rate
        await asyncio.sleep(max(0.0, t - time.monotonic()))
    await asyncio.gather(*pending, *slows, return_exceptions=True)
    print(f"scrapes answered {stats['ok']}, failed {stats['failed']} in {seconds:.0f} s "
          f"({stats['ok'] / seconds:.0f}/s asked {rate}/s); slow clients {n_slow}, reconnections {stats['reconnects']}")


if __name__ == "__main__":
    port, rate, n_slow, seconds = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    asyncio.run(main(port, rate, n_slow, seconds))
