#!/usr/bin/env python3
"""Makes the game's sound effects by synthesis: `python3 assets/sounds/make_sounds.py`.

Standard library only; the same script always writes the same files (seeded noise). The made
WAV files (16-bit PCM mono, 44.1 kHz) are committed, so neither CI nor a player needs Python.
Change a recipe below and run the script again to change a sound.
"""

import math
import os
import random
import struct
import wave

RATE = 44100
HERE = os.path.dirname(os.path.abspath(__file__))


def seconds(s):
    return int(s * RATE)


def sine(freq, t, phase=0.0):
    return math.sin(2 * math.pi * freq * t + phase)


def lowpass(samples, cutoff):
    """One-pole low-pass: soft noise for thumps and fizz."""
    a = math.exp(-2 * math.pi * cutoff / RATE)
    out, y = [], 0.0
    for x in samples:
        y = (1 - a) * x + a * y
        out.append(y)
    return out


def highpass(samples, cutoff):
    low = lowpass(samples, cutoff)
    return [x - l for x, l in zip(samples, low)]


def normalise(samples, peak):
    top = max(abs(s) for s in samples) or 1.0
    return [s * peak / top for s in samples]


def fade_edges(samples, attack=0.002, release=0.01):
    n = len(samples)
    a, r = max(1, seconds(attack)), max(1, seconds(release))
    return [
        s * min(1.0, i / a) * min(1.0, (n - 1 - i) / r) for i, s in enumerate(samples)
    ]


def echo(samples, delays_ms, gain):
    """A few feedback combs: a stone room's tail."""
    out = list(samples) + [0.0] * seconds(0.6)
    for d in delays_ms:
        k = seconds(d / 1000)
        for i in range(k, len(out)):
            out[i] += out[i - k] * gain
    return out


def hum(rng):
    """The laser's hum while the beam travels: a loop of exactly 2 s whose partials complete
    whole cycles in it, so it loops without a click; the crackle is cross-faded into its start."""
    n = seconds(2.0)
    xfade = seconds(0.25)
    noise = highpass([rng.uniform(-1, 1) for _ in range(n + xfade)], 3000)
    out = []
    for i in range(n):
        t = i / RATE
        wobble = 0.5 + 0.5 * sine(1.5, t)
        s = (
            0.55 * sine(110, t)
            + 0.30 * sine(220.5, t, 0.3)
            + 0.12 * sine(330, t, 1.1)
            + 0.10 * sine(880, t) * wobble
            + 0.05 * sine(1761.5, t, 0.7)
        )
        c = noise[i]
        if i < xfade:
            w = i / xfade
            c = c * w + noise[n + i] * (1 - w)
        out.append(s + 0.18 * c * (0.6 + 0.4 * wobble))
    return normalise(out, 0.55)


def ping(rng):
    """A reflection: a bright, glassy ping of inharmonic partials."""
    n = seconds(0.6)
    partials = [(2093.0, 1.0, 9.0), (3136.0, 0.5, 12.0), (5274.0, 0.3, 18.0), (7040.0, 0.15, 26.0)]
    out = []
    for i in range(n):
        t = i / RATE
        out.append(sum(a * math.exp(-d * t) * sine(f, t) for f, a, d in partials))
    return fade_edges(normalise(out, 0.5), 0.001, 0.05)


def zap(rng):
    """The laser fires: a quick falling chirp with a spark of noise."""
    n = seconds(0.28)
    out, phase = [], 0.0
    for i in range(n):
        t = i / RATE
        f = 2400 * math.exp(-9 * t) + 180
        phase += 2 * math.pi * f / RATE
        env = math.exp(-10 * t)
        out.append(env * (0.8 * math.sin(phase) + 0.25 * math.sin(3 * phase)) + 0.1 * env * rng.uniform(-1, 1))
    return fade_edges(normalise(out, 0.5), 0.001, 0.03)


def shatter(rng):
    """A piece breaks: a low thump, a burst of grit and falling crackles."""
    n = seconds(0.9)
    grit = lowpass([rng.uniform(-1, 1) for _ in range(n)], 2500)
    crackle = [0.0] * n
    for _ in range(70):
        at = int(rng.triangular(0, n * 0.8, n * 0.05))
        amp = rng.uniform(0.2, 1.0) * math.exp(-3 * at / n)
        f = rng.uniform(1500, 5000)
        for k in range(seconds(0.02)):
            if at + k < n:
                crackle[at + k] += amp * math.exp(-k / 120) * math.sin(2 * math.pi * f * k / RATE)
    out = []
    for i in range(n):
        t = i / RATE
        thump = math.exp(-14 * t) * sine(70 + 60 * math.exp(-20 * t), t)
        out.append(0.9 * thump + 0.7 * grit[i] * math.exp(-7 * t) + 0.35 * crackle[i])
    return fade_edges(normalise(out, 0.7), 0.001, 0.08)


def fizz(rng):
    """The beam stops on a shield, a Sphinx or the wall: a soft sizzle."""
    n = seconds(0.35)
    noise = highpass([rng.uniform(-1, 1) for _ in range(n)], 4000)
    out = [noise[i] * math.exp(-9 * i / RATE) * (1 + 0.5 * sine(60, i / RATE)) for i in range(n)]
    return fade_edges(normalise(out, 0.3), 0.003, 0.05)


def pharaoh(rng):
    """A Pharaoh is lit: a deep boom, then a rising, ringing chord in a stone hall."""
    n = seconds(2.6)
    chord = [220.0, 261.63, 329.63, 440.0, 659.25]
    out = []
    for i in range(n):
        t = i / RATE
        boom = math.exp(-4 * t) * sine(45 + 30 * math.exp(-6 * t), t)
        swell = min(1.0, t / 0.4) * math.exp(-1.1 * max(0.0, t - 0.4))
        ring = sum(sine(f * (1 + 0.004 * t), t, k) / (k + 1) for k, f in enumerate(chord))
        shimmer = 0.15 * sine(1760, t) * sine(5.5, t)
        out.append(1.2 * boom + 0.35 * swell * (ring + shimmer))
    out = echo(out, [53, 79, 113], 0.35)
    return fade_edges(normalise(out, 0.8), 0.001, 0.4)


def click(rng):
    """A piece set down on stone: a short knock."""
    n = seconds(0.09)
    out = []
    for i in range(n):
        t = i / RATE
        out.append(math.exp(-70 * t) * (0.7 * sine(820, t) + 0.4 * sine(1730, t)) + 0.5 * math.exp(-400 * t) * rng.uniform(-1, 1))
    return fade_edges(normalise(out, 0.45), 0.0005, 0.02)


SOUNDS = {
    "hum": hum,
    "ping": ping,
    "zap": zap,
    "shatter": shatter,
    "fizz": fizz,
    "pharaoh": pharaoh,
    "click": click,
}


def write(name, samples):
    path = os.path.join(HERE, name + ".wav")
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(
            b"".join(struct.pack("<h", int(max(-1.0, min(1.0, s)) * 32767)) for s in samples)
        )
    print(f"{path}: {len(samples) / RATE:.2f} s")


if __name__ == "__main__":
    for name, make in SOUNDS.items():
        write(name, make(random.Random(name)))
