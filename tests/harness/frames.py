"""Stream frames the overlay is laid over in the tests (OBS's scene under the browser source):
seeded pictures, the same every run, so a contrast or legibility check sees what a stream
would show."""

from __future__ import annotations

import math

from PIL import Image, ImageDraw


def photo_frame(size: tuple[int, int]) -> Image.Image:
    """A real-looking stream frame: a lamp-lit wooden table seen from above — warm wood grain
    with noise, cards and dice scattered, a bright lamp spot and a vignette, slightly blurred
    as a camera would see it (seeded: the same picture every run)."""
    import random

    from PIL import ImageFilter

    w, h = size
    rnd = random.Random(31)
    small = (w // 4, h // 4)
    wood = Image.new("RGB", small)
    px = wood.load()
    assert px is not None
    for y in range(small[1]):
        for x in range(small[0]):
            grain = math.sin(y / 3.1 + math.sin(x / 40) * 3) * 0.5 + 0.5
            base = 120 + 60 * grain + rnd.uniform(-12, 12)
            px[x, y] = (int(base * 1.05), int(base * 0.72), int(base * 0.45))
    frame = wood.resize(size, Image.Resampling.BICUBIC).convert("RGBA")
    draw = ImageDraw.Draw(frame)
    for _ in range(9):  # cards: white, some with a red or blue back
        cx, cy = rnd.uniform(0.05, 0.95) * w, rnd.uniform(0.05, 0.95) * h
        cw, ch = w * 0.06, w * 0.085
        a = rnd.uniform(0, math.pi)
        corners = [
            (cx + dx * math.cos(a) - dy * math.sin(a), cy + dx * math.sin(a) + dy * math.cos(a))
            for dx, dy in (
                (-cw / 2, -ch / 2),
                (cw / 2, -ch / 2),
                (cw / 2, ch / 2),
                (-cw / 2, ch / 2),
            )
        ]
        fill = rnd.choice([(246, 244, 236, 255), (246, 244, 236, 255), (170, 40, 40, 255),
                           (40, 70, 160, 255)])  # fmt: skip
        draw.polygon(corners, fill=fill, outline=(60, 40, 30, 255))
    for _ in range(14):  # dice and tokens
        cx, cy, r = rnd.uniform(0, w), rnd.uniform(0, h), w * rnd.uniform(0.008, 0.02)
        fill = rnd.choice([(250, 250, 250, 255), (20, 20, 20, 255), (220, 180, 40, 255),
                           (60, 160, 90, 255)])  # fmt: skip
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=fill)
    light = Image.new("L", size, 0)
    ImageDraw.Draw(light).ellipse((w * 0.25, -h * 0.3, w * 0.95, h * 0.7), fill=255)
    light = light.filter(ImageFilter.GaussianBlur(w / 10))
    bright = Image.new("RGBA", size, (255, 246, 225, 255))
    frame = Image.composite(bright, frame, light.point(lambda v: int(v * 0.55)))
    dark = Image.new("L", size, 0)
    ImageDraw.Draw(dark).rectangle((0, 0, w, h), fill=150)
    ImageDraw.Draw(dark).ellipse((-w * 0.15, -h * 0.25, w * 1.15, h * 1.25), fill=0)
    dark = dark.filter(ImageFilter.GaussianBlur(w / 12))
    frame = Image.composite(Image.new("RGBA", size, (10, 6, 4, 255)), frame, dark)
    return frame.filter(ImageFilter.GaussianBlur(1.2))
