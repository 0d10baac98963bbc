"""Assembles REPRODUCTION.md's per-figure sections from the comparison.md files that
`headstart lab reproduce` wrote, with the notes below (why the lab and the paper differ,
from measurements in the same runs). Usage:
    python3 bench/reproduction_notes.py QUICK_DIR [FULL_DIR] > sections.md
    python3 bench/reproduction_notes.py --summary QUICK_DIR TIMES.txt... > summary.md
"""
import os
import sys

NOTES = {
    "s-cubic-fig2": "The U-shape and the text's bounds hold at every RTT.",
    "s-cubic-fig3": (
        "The text's orderings hold. Jump-Start's loss at 8 KB is a few milliseconds here "
        "(pacing 179 packets at 179 × 1448 B / 100 ms ≈ 21 Mbit/s sends 6 packets in 4 ms "
        "instead of at once), within rounding of Ω; Cache equals Jump-Start at 1 MB because "
        "both stop at the receiver's 179-packet window, which is the paper's own explanation "
        "of why Cache+ was needed."
    ),
    "s-cubic-fig9": (
        "Cubic agrees. S-Cubic's first 800 packets wait 1.4 ms here (full run 1.6 ± 0.3) against the paper's 0.4: "
        "the entry its warm-up stored is 96.5 Mbit/s of payload (flows.csv, table_bw_mbps), "
        "which with headers is the link's 100 Mbit/s exactly, so the paced jump arrives at the "
        "link's own rate and the small bursts of the kernel's pacing (two segments per "
        "release) keep a queue of about a dozen packets for the whole first RTT."
    ),
    "s-cubic-table3": (
        "Cubic agrees in 5 of 6 cells of the full run. S-Cubic's means depend on which sizes "
        "dominate them (the quick run has three sizes, the full one the paper's eleven). Per "
        "size in the full run (flows.csv): at 1 BDP and 100 ms S-Cubic queues 1.0–1.2 ms up to "
        "1 MB (the paced first RTT carries the whole flow) and 18 ms at 8 MB against Cubic's "
        "31 (no slow-start overshoot), so its mean is half Cubic's where the paper found them "
        "equal (6.6). At half a BDP and 50 ms it is lower than Cubic's up to 2 MB and higher "
        "at 4–8 MB (11.8 and 13.6 ms against 7.0 and 3.7): Cubic's long flows there overshoot, "
        "lose and halve below the link, S-Cubic's validated jumps (30 of 33) hand Cubic a "
        "window at the BDP that keeps the small buffer full."
    ),
    "s-cubic-fig10": (
        "The full run (400 flows per point, the paper's four mean sizes at 12/27/63 % load) "
        "gains 44–49 % at 12 % and 37–44 % at 27 %, but 23–31 % at 63 % where the paper states "
        "over 30 %: at that load headstart's jumps are smaller and fewer (512 KB mean: median "
        "jump 123 packets against 256 at 12 %, 36 of 400 starts refused while the client's other "
        "flows held its budget, 49 rate-test retreats against 27): the busy-share cut and the "
        "per-peer budget guard the neighbours (s-cubic-fig12), which the paper's module does not."
    ),
    "s-cubic-fig12": (
        "The lab's Cubic flows are slowed by 1–5 % beside S-Cubic in the quick run and by 0.6"
        "–0.9 % in the full one (per mean size −4.7 … +3.6 %, within the spread), not 12.6–23"
        ".1 %. Of the full run's 800 S-Cubic flows per load, 782, 752 and 645 jumps were vali"
        "dated (12, 27, 63 %) and 18, 41 and 68 retreated (flows.csv, resume); at 63 % a furt"
        "her 87 did not jump (no entry yet, siblings, too small). headstart's jumps are cut b"
        "y the share of recent handshakes that found the bottleneck busy (bpf/lib/resume.h, d"
        "ifference 6), which the paper's module does not do, and Careful Resume ends a jump a"
        "t the first loss."
    ),
    "s-cubic-fig13": (
        "Cubic's late flow needs 37 s to reach 80 % of the first's rate (the paper: nearly a "
        "minute). The S-Cubic late flow, starting from the entry a 1 MB flow left, needs as "
        "long (36 s), not 'quickly': it jumped (381 packets, the entry's 96.7 Mbit/s at 50 ms "
        "is 417) into the first flow's full queue, lost, and Careful Resume's Safe Retreat "
        "(retreat_loss, flows.csv) put it back on Cubic's path; the paper's S-Cubic kept its "
        "jump. The full run (flows of 1.2 GB and 1 GB) took 133 s for Cubic's late flow and "
        "60 s for S-Cubic's (one run each: how fast two Cubic flows meet depends on how their "
        "losses fall, and the quick runs' 37 s had flows ending ~50 s after the join). "
        "Before ed9327c these runs met entries earlier runs had left (a competing run did "
        "not forget its peers): the first long flow jumped too."
    ),
    "s-cubic-fig14": (
        "Cubic's late flow retransmits 10 segments in its first rounds (full run 3; the paper: "
        "4); S-Cubic's 11 (full run 15) against the paper's 138 is the retreat of Fig. 13: the jump (363 "
        "packets) stops at the first loss instead of running into the full queue. The "
        "figure's trade-off (S-Cubic's convergence bought with losses) is what Careful "
        "Resume removed, and with it the convergence."
    ),
    "s-cubic-fig16": (
        "Gains grow from 4G to 5G, and with loss on 4G. On the 5G stand-in (a constant "
        "rate) 0.1 % loss changes the gain by under a point in the quick run: without a trace's rate swings "
        "Cubic's slow start there is cut by random loss as often with S-Cubic's jump as "
        "without. The full run (150 flows per cell, the three networks) keeps the order 3G < 4G < 5G "
        "(−1.3, 8.9, 43 % at 0 % loss) but not the loss claims: on 3G S-Cubic almost never jumps "
        "(of 150 flows 70 refused for a handshake RTT longer than the entry's, the trace's queue "
        "being in it, 58 for a saved BDP below 40 packets, 3 validated), so its flows are Cubic's "
        "and its 'gain' is noise about zero (−3.0 % with loss); on 5G 0.1 % loss lowers the gain "
        "(43 → 29 %) where the paper's rises: 13 jumps retreat on a loss (Careful Resume; the "
        "paper's S-Cubic keeps its jump) and a lossy path's jumps get no window override."
    ),
    "s-cubic-table5": (
        "The paper prints whole milliseconds. The 4G trace here is T-Mobile's LTE recording "
        "(17 Mbit/s mean) with Poisson flows at 30 % load, not the paper's capture: its "
        "queues are half the paper's at 0 % loss. The 5G stand-in is a constant rate: its "
        "queue (1.4 ms) comes from the flows' own bursts, not from rate drops. The full run "
        "(compared from s-cubic-fig16's runs, the same setup) adds 3G: the UMTS recording at 30 % "
        "load keeps its deep buffer full, about 1 s of queue for both controllers (the paper "
        "194 and 175 ms). S-Cubic queues less than Cubic in 5 of 6 cells where the paper has it "
        "higher in almost all: headstart refuses most cellular jumps (the handshake's RTT "
        "carries the queue) and cuts the rest by the entry's busy share."
    ),
    "s-cubic-fig17": (
        "At 0 % error the FCT agrees. At +100 %, before 65c2ea2 (three quick runs at 038a734), "
        "the lab's S-Cubic retransmitted 6.5–7.8 % of its segments (the paper: 2.3 %) and its FCT "
        "rose 30 % (0.295–0.319 s; the paper: 10 %): 22–23 of 40 jumps retreated on the rate test, "
        "each deleting its entry, and the next flow of that client jumped twice the BDP again from "
        "the fresh entry it met (1,340–1,656 bottleneck drops per run, cubic 0). Since 65c2ea2 two "
        "rate-test retreats in a row halve the peer's next jumps (bpf/lib/resume.h, "
        "hs_overshot_share): three quick runs give 3.7–4.3 % and 0.223–0.232 s, with the 0 % and "
        "−80 % points unchanged. What remains is physics: the rate test reads the delivery rate a "
        "quarter RTT into Validating, by which time a whole jump of twice the BDP, paced over one "
        "RTT, has overflowed a one-BDP buffer under 27 % load; each client's first two overshoots, "
        "and its jumps once the busy share has decayed, still do (966–1,128 drops per run). Only "
        "a smaller jump from every entry (RFC 9959's half) would avoid them, at a cost to every "
        "right entry (DESIGN.md, departure 4). The full run (300 flows per point, at 65c2ea2): at "
        "+100 % 2.7 % retransmitted (the paper 2.3 %: agrees) and the FCT 7 % above the 0 % "
        "point's (0.293 against 0.274 s; the paper 10 %); retransmissions rise from +20 % on "
        "(0.7 %), as the paper's do beyond +60 %. Both FCTs are above the paper's because 300 "
        "draws of the Pareto sizes (mean 1 MB, seed 17) hold larger flows (cubic's mean 0.528 s, "
        "the quick run's 0.466). The harm that remains: 5,344 bottleneck drops at +100 % against "
        "cubic's 411 and the 0 % point's 487 (80 of 304 jumps retreated on the rate test, 5 on "
        "a loss)."
    ),
    "hystart-table3": (
        "The short transfers (10 KB, 100 KB) agree with the paper's IW of 3 (cubic:iw3). The "
        "1 MB and 10 MB transfers at 50–100 Mbit/s are 20–33 % faster in the lab, and SS "
        "equals HyStart: at 100 Mbit/s a 10 MB SS flow retransmits ~1,460 segments and still "
        "finishes 21 ms after HyStart's loss-free flow (flows.csv). The paper's SS penalty "
        "came from Linux 2.6.23's slow SACK processing after the overshoot (its own Figs. 4–6); "
        "6.18 recovers without the blackout."
    ),
    "hystart-fig9": (
        "SS overshoots to 2,458 packets and loses 2,323 segments, as the paper describes. "
        "HyStart's exit (the kernel's ACK-train test, TcpExt TCPHystartTrainCwnd 1,089) comes "
        "at 1,089 packets, 23 % above the paper's ~870 and inside the path's 1,766-packet "
        "capacity (BDP plus buffer); the kernel's train test has changed since (a 2 ms ACK "
        "delta and a minimum of 16 packets)."
    ),
    "hystart-fig14": (
        "Both claims differ, for the reason of hystart-table3: with drop-tail, SS's 10 MB flow "
        "retransmits 290 segments and finishes within a millisecond of HyStart's (9.24 s), "
        "so there is no second to save. RED slows both (11.7 and 12.3 s), SS by 0.6 s more: "
        "the reverse of the paper's 'RED makes SS close to HyStart'. HyStart did fire in "
        "these runs (TcpExt TCPHystartTrainDetect 3, TCPHystartDelayDetect 1). The full run (5 "
        "repetitions) agrees on drop-tail (SS 9.239 s, HyStart 9.258 ± 0.038) and finds RED "
        "slowing HyStart more than SS at 10 MB (11.9 ± 1.0 against 10.4 ± 0.55 s), the reverse "
        "of the quick run's two repetitions: under RED's random early drops the order of the two "
        "is within about twice their spread. Its second claim (the gap with drop-tail minus the "
        "gap with RED, ≥ 0) then 'agrees' arithmetically (1.56 s), but not in the paper's sense: "
        "there is no drop-tail gap for RED to close."
    ),
    "hystart-fig15": (
        "At 120 ms the paper finds HyStart's second flow converging faster; here SS's second "
        "flow reaches 80 % of the first's rate within 1.5 s in both the quick and the full ru"
        "n (it overshoots: the first flow retransmits 3,297–3,372 segments), while HyStart's "
        "second flow leaves slow start on the first flow's queue delay and needs Cubic's grow"
        "th: 34.5 s (quick), 10.5 s (full). The paper's SS flows lost whole seconds to recove"
        "ry (2.6.23); 6.18's do not. The full run (one run per RTT, 1,429 s) adds 60 ms, wher"
        "e the paper has SS slightly ahead and the lab HyStart (21.5 s against 76.5 s), and 2"
        "40 ms (HyStart 7.5 s, SS 3.0 s). One run per cell and convergence times that move by"
        " 3× between runs of one cell (120 ms, HyStart) do not establish either order; the cl"
        "aims at 60 and 120 ms differ from the paper in these runs."
    ),
    "hystart-fig23": (
        "Up to 1 MB HyStart and SS take the same time, as in the paper. At 10 MB the paper "
        "saw HyStart slightly slower on a real cable network's RTT swings; the emulated "
        "jitter (up to 20 ms, uniform) does not make HyStart exit early here (ratio 0.999; "
        "full run, 10 repetitions, 0.996)."
    ),
    "suss-fig10": (
        "Cubic delivers 1.9 MB in 2 s as in the paper; SUSS 3.4 MB (1.8×) against the "
        "paper's 6 MB (3×). The stand-in is a clean emulated path with the paper's cwnd* "
        "(1,300 packets); headstart's SUSS grows 4× in a round only while the ACK train and "
        "delay tests allow (suss_k_max = 1, bpf/lib/suss_round.h), the paper's 4G phone path "
        "is not reproducible."
    ),
    "suss-fig12": (
        "SUSS saves exactly one round trip at every size on the wired path (0.25 s at 250 ms: "
        "1.506 → 1.261 s at 256 KB, 2.015 → 1.777 s at 1 MB in the quick run), 6–17 % of these "
        "FCTs in the full run (128 KB–16 MB), against the paper's > 20 % on its Internet paths. On "
        "the emulated path Cubic's own slow start runs to cwnd* without HyStart stopping it early, "
        "which is where the paper's paths gave SUSS more to gain (its Fig. 12(d)). The full run's "
        "4G points swing from −30 % to +34 %: the sweep runs cubic's and SUSS's flows one after "
        "the other, so each meets another stretch of the LTE trace (10 repetitions do not average "
        "that out at 2–16 MB); they are not a measure of SUSS."
    ),
    "suss-table1": (
        "The small flows' FCTs agree (SUSS off and on); the large flow's FCT depends on the "
        "bottleneck rate, which the paper does not state (50 Mbit/s assumed). The ± of the "
        "small flows spans their four RTTs (25–200 ms) and the large flow's queue, not "
        "repetitions. The 54 % improvement at 200 ms (the paper: 25 %) rests on one SUSS-off "
        "small flow of 13.4 s (a 50 ms client's 2 MB, flows.csv) among six of 2.0–8.9 s: "
        "one run per cell in the quick variant. The full run (12 small flows, a 170 MB large "
        "flow) has SUSS's improvement 29 / 8 / 9 / 45 % at 25 / 50 / 100 / 200 ms against the "
        "paper's 29 / 17 / 14 / 25 %; its large flow takes 35–44 s (the paper 27–38 s at an "
        "unstated rate), with SUSS on or off alike, as in the paper."
    ),
    "s-bbr-table2": (
        "S-BBR, BBR and S-Cubic agree at every mean size (full run, 300 flows each). Cubic is "
        "faster here than in the paper (at 1 MB 38.2 ± 1.7 against 18.2 Mbit/s): the stand-in is "
        "a constant 180 Mbit/s, where the paper's 5G trace varies, and 0.1 % loss cuts a slow "
        "start less when the rate never drops. The stateful starts' gains over their kernel "
        "controllers are therefore smaller than the paper's (S-BBR over BBR at 1 MB: 1.31× here, "
        "1.81× in the paper)."
    ),
    "s-bbr-table3": (
        "As s-bbr-table2, at 1 % loss: Cubic is the most loss-sensitive and differs most (full "
        "run at 1 MB: 17.4 against 11.3 Mbit/s); S-Cubic's small flows (64 and 128 KB means) are "
        "faster than the paper's for the same reason, its large ones agree. S-BBR is within the "
        "tolerance but below the paper at every size (38.5 against 52.9 Mbit/s at 1 MB): at 1 % "
        "loss most jumps meet a loss and Careful Resume retreats, which the paper's S-BBR does not."
    ),
    "s-bbr-table4": (
        "The paper prints whole milliseconds; the lab's constant-rate link queues far less "
        "than a trace whose rate drops (full run: 0.15–0.4 ms for 64 and 128 KB means, 2.0–3.0 ms "
        "at 1 MB for every controller, against the paper's 10 for BBR and S-BBR). Compared from "
        "the runs of s-bbr-table2 (the same setup), with `--from`."
    ),
    "s-bbr-table5": "As s-bbr-table4, at 1 % loss (compared from the runs of s-bbr-table3).",
    "s-cubic-fig11": (
        "Both controllers' flows overlap (87–100 % of flows have another in flight at 27 and "
        "63 % load), and Cubic's more, as the paper says ('much larger in Cubic than in "
        "S-Cubic': S-Cubic's flows end sooner). Quick run: 6.6 against 3.4 other flows per "
        "flow at 27 %, 15.9 against 10.7 at 63 %. Full run (s-cubic-fig10's full runs of "
        "2026-11-29, 400 flows per mean size and load): 4.9 against 2.5 at 12 %, 11.5 against "
        "6.9 at 27 %, 33.1 against 24.9 at 63 %; all three differences agree, each several "
        "times its spread. figure.png draws the distribution as CDFs (the paper: PDFs). "
        "Compared from s-cubic-fig10's runs (bench/reproduce_all.sh links them)."
    ),
    "hystart-fig16": (
        "The paper's order holds at 120 ms and not at 60 ms. Full run, 4 runs per cell: at 12"
        "0 ms HyStart's second flow takes 19.9 ± 2.0 % of the link over its first 20 s agains"
        "t SS's 25.9 ± 7.7 % (quick run 15.5 against 28.0); it leaves slow start on the delay"
        " test with 41–63 retransmissions where SS's second flow overshoots into loss (469–1,"
        "151). At 60 ms the two are the same, 28.5 ± 1.1 against 28.4 ± 1.1 %: the first flow"
        " keeps the 1-BDP buffer full and HyStart's second flow meets loss before its delay t"
        "est fires, as SS's does (145–158 retransmissions for either), so both end slow start"
        " alike. The difference's ± is the two means' in quadrature."
    ),
    "suss-fig2": (
        "Ten seconds after the fourth flow starts, the first CUBIC flow still holds 35–43 of "
        "the 50 Mbit/s (throughput.csv; it ends at 26–28 s): the four are far from the fair s"
        "hare the paper waits 60 s for, so the fifth's rate against the others' mean over its"
        " first 15 s is compared, and F of the flows running is shown beside it. The first ve"
        "rsion of this ID took F of all five, cut where the first flow ended; it measured the"
        " four's own unfairness over about 6 s and was replaced. Full run, 3 runs each: the f"
        "ifth's rate against the others' is CUBIC 0.56 (runs 0.64, 0.18, 0.86), BBR 0.99 (1.0"
        "1, 1.87, 0.08; its four retransmit 478–2,645 segments), a SUSS fifth 0.67 (1.21, 0.2"
        "2, 0.58): the means are in the paper's order (BBR and SUSS above CUBIC) but the run-"
        "to-run spread is larger than the differences, and 3 runs are too few to separate the"
        "m; the paper's Fig. 2 is one example run. A SUSS fifth reaches 80 % of a fair share "
        "in 8.6 s against CUBIC's 11.5 s (quick run 12.8 against 32.5)."
    ),
    "suss-fig15": (
        "Quick run (100 ms, 2 BDP): SUSS off, the fifth ran at 0.45 of the others' mean over "
        "its first 15 s; on, at 0.74. Once the first flow ends (about 23 s) the SUSS fifth ho"
        "lds its share (F 0.97–0.99) where the SUSS-off fifth stays at 3–6 Mbit/s against the"
        " others' 14–16 (F 0.85–0.91): the paper's 'prolonged delay in approaching 1'. F over"
        " the 15 s after the join moves little (0.756 off, 0.764 on): the first flow's hold o"
        "n the link (as in suss-fig2) dominates it. Full run (12 cells, one run each, 1,813 s"
        "): on − off F is ≥ 0 in 7 cells and below in 5 (−0.22 … +0.08), one run per cell wit"
        "h the four flows not yet fair at the join; the paper's claim on F is not shown by th"
        "ese runs."
    ),
    "s-bbr-fig4": (
        "The paper's orderings hold at both losses, quick and full. Quick: S-BBR's median "
        "per-flow throughput is 1.20× BBR's at 0.1 % and 1.52× at 1 %, and above S-Cubic's "
        "(1.05× and 1.59×: more so at 1 %, as the paper says). Full (s-bbr-table2 and table3's "
        "full runs of 2026-11-29, 300 flows per controller and mean): 1.42× and 1.16× BBR's, "
        "1.05× and 1.27× S-Cubic's. figure.png pools the four mean sizes' flows as the "
        "paper's Fig. 4 does. Compared from s-bbr-table2 and table3's runs "
        "(bench/reproduce_all.sh links them)."
    ),
}


def section(d, label):
    with open(os.path.join(d, "comparison.md")) as f:
        text = f.read().strip()
    return text.replace("#### ", f"#### {label}", 1) if label else text


def counts(d):
    with open(os.path.join(d, "comparison.md")) as f:
        for line in f:
            if " agree, " in line:
                parts = line.split(".")[0].split(", ")
                return [p.split()[0] for p in parts]
    return ["?", "?", "?"]


def summary(quick, times):
    secs = {}
    for t in times:
        if os.path.exists(t):
            for line in open(t):
                i, _, s = line.split()
                secs[i] = s
    print("| ID | paper | quick run | agree | differ | lab only |")
    print("|---|---|---|---|---|---|")
    for i in ordered(quick):
        with open(os.path.join(quick, i, "comparison.md")) as f:
            source = f.readline().split(" — ", 1)[1].split(":")[0]
        a, d, n = counts(os.path.join(quick, i))
        print(f"| {i} | {source} | {secs.get(i, '?')} | {a} | {d} | {n} |")


def ordered(quick):
    ids = [x for x in os.listdir(quick) if os.path.isdir(os.path.join(quick, x))]
    order = {"s-cubic": 0, "hystart": 1, "suss": 2, "s-bbr": 3}

    def key(i):
        paper, what = i.rsplit("-", 1)
        return (order.get(paper, 9), what.startswith("table"), int("".join(c for c in what if c.isdigit()) or 0))

    return sorted(ids, key=key)


def main():
    if sys.argv[1] == "--summary":
        return summary(sys.argv[2], sys.argv[3:])
    quick = sys.argv[1]
    full = sys.argv[2] if len(sys.argv) > 2 else None
    ids = sorted(x for x in os.listdir(quick) if os.path.isdir(os.path.join(quick, x)))
    order = {"s-cubic": 0, "hystart": 1, "suss": 2, "s-bbr": 3}
    def key(i):
        paper, what = i.rsplit("-", 1)
        return (order.get(paper, 9), what.startswith("table"), int("".join(c for c in what if c.isdigit()) or 0))

    ids.sort(key=key)
    for i in ids:
        print(section(os.path.join(quick, i), ""))
        print()
        if full and os.path.exists(os.path.join(full, i, "comparison.md")):
            print(section(os.path.join(full, i), "(full run) "))
            print()
        if i in NOTES:
            print("Notes: " + NOTES[i])
            print()


if __name__ == "__main__":
    main()
