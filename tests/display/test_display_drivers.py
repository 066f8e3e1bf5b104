"""Panel drivers: the PNG panel for real; Inky and Waveshare with a stand-in device injected.

The Inky and Waveshare libraries cannot drive hardware here (Waveshare's even
fails to import off a Pi), so their drivers are given an object with the
library's own method names and checked for what they send it: which calls in
which order, and buffers whose black and red pixels are exactly the frame's.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from display.drivers import DriverUnavailable, open_panel
from display.drivers.base import layer
from display.drivers.inky import InkyPanel
from display.drivers.png import PngPanel
from display.drivers.waveshare import MODELS, WavesharePanel
from display.panels import ACCENT, BLACK, WHITE
from display.render import render
from display.screens.banner import Banner
from settings.errors import ConfigError
from tests.harness import views as dv


def _frame(panel: str, colour: str = "bw") -> Image.Image:
    banner = Banner("Reader 2 lost") if colour != "bw" else None
    return render(dv.performance_mid(), panel, colour, banner=banner)


def _indices(image: Image.Image) -> bytes:
    return image.tobytes()


# --- png ----------------------------------------------------------------------------


def test_png_panel_writes_numbered_frames_and_latest(tmp_path: Path) -> None:
    panel = PngPanel(tmp_path, "2.9", "bwr")
    first, second = _frame("2.9", "bwr"), render(dv.between_plain(), "2.9", "bwr")
    panel.show(first)
    panel.show(second, partial=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "frame-000001.png",
        "frame-000002.png",
        "latest.png",
    ]
    with Image.open(tmp_path / "latest.png") as latest:
        assert latest.mode == "P" and latest.tobytes() == second.tobytes()
    with Image.open(tmp_path / "frame-000001.png") as one:
        assert one.tobytes() == first.tobytes()
    assert panel.refreshes == [(1, False), (2, True)]


def test_png_panel_continues_numbering_and_keeps_the_last_n(tmp_path: Path) -> None:
    PngPanel(tmp_path, "2.13").show(_frame("2.13"))
    panel = PngPanel(tmp_path, "2.13", keep=2)
    for _ in range(3):
        panel.show(_frame("2.13"))
    frames = sorted(p.name for p in tmp_path.glob("frame-*.png"))
    assert frames == ["frame-000003.png", "frame-000004.png"]


def test_png_panel_refuses_a_frame_of_the_wrong_size(tmp_path: Path) -> None:
    panel = PngPanel(tmp_path, "2.13")
    with pytest.raises(ValueError, match="250×122"):
        panel.show(_frame("2.9"))


def test_unknown_driver_is_a_clear_error() -> None:
    with pytest.raises(ConfigError, match="png, inky, waveshare"):
        open_panel("papyrus")


def test_open_panel_png_by_name(tmp_path: Path) -> None:
    panel = open_panel("png", out_dir=str(tmp_path / "frames"), panel="4.2", colour="bwy")
    assert panel.spec.size == (400, 300) and panel.colour == "bwy"


# --- inky ---------------------------------------------------------------------------


class FakeInky:
    """Shaped like ``inky.phat.InkyPHAT``: white 0, black 1, red/yellow 2."""

    WHITE, BLACK, RED, YELLOW = 0, 1, 2, 2

    def __init__(self, resolution: tuple[int, int] = (250, 122), colour: str = "red") -> None:
        self.resolution = resolution
        self.width, self.height = resolution
        self.colour = colour
        self.calls: list[str] = []
        self.image: Image.Image | None = None
        self.border: int | None = None

    def set_border(self, colour: int) -> None:
        self.calls.append("set_border")
        self.border = colour

    def set_image(self, image: Image.Image) -> None:
        self.calls.append("set_image")
        self.image = image.copy()

    def show(self) -> None:
        self.calls.append("show")


class FakeInkyJD79661(FakeInky):
    """Shaped like the four-colour pHAT: black 0, white 1, yellow 2, red 3."""

    BLACK, WHITE, YELLOW, RED = 0, 1, 2, 3


def test_inky_shows_every_frame_fully_with_its_own_colour_codes() -> None:
    """docs/display.md: Inky has no partial refresh; the pHAT's codes equal ours."""
    device = FakeInky()
    panel = InkyPanel(device)
    assert panel.spec.name == "2.13" and panel.colour == "bwr"
    assert not panel.supports_partial
    frame = _frame("2.13", "bwr")
    panel.show(frame, partial=True)
    assert device.calls == ["set_border", "set_image", "show"]
    assert device.border == FakeInky.WHITE
    assert device.image is not None and device.image.tobytes() == frame.tobytes()


def test_inky_translates_inks_for_boards_that_number_them_differently() -> None:
    device = FakeInkyJD79661(colour="red/yellow")
    panel = InkyPanel(device, colour="bwy")
    frame = _frame("2.13", "bwy")
    panel.show(frame)
    sent = device.image
    assert sent is not None
    want = {WHITE: device.WHITE, BLACK: device.BLACK, ACCENT: device.YELLOW}
    assert bytes(want[b] for b in frame.tobytes()) == sent.tobytes()


def test_inky_wrong_colour_for_the_board_is_refused() -> None:
    with pytest.raises(ConfigError, match="does not match"):
        InkyPanel(FakeInky(colour="black"), colour="bwr")


def test_inky_panel_option_must_match_the_board() -> None:
    with pytest.raises(ConfigError, match="does not match the Inky board"):
        open_panel("inky", device=FakeInky(resolution=(400, 300)), panel="2.13")


def test_inky_without_the_library_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "inky", None)  # as if not installed
    monkeypatch.setitem(sys.modules, "inky.auto", None)
    with pytest.raises(DriverUnavailable, match=r"rhuna-table\[inky\]"):
        open_panel("inky")


# --- waveshare ------------------------------------------------------------------------


class FakeEPD:
    """Shaped like a ``waveshare_epd`` EPD: portrait width/height, getbuffer as the vendor's."""

    def __init__(self, width: int, height: int, methods: tuple[str, ...]) -> None:
        self.width, self.height = width, height
        self.calls: list[tuple[str, tuple[Any, ...]]] = []
        for name in methods:
            setattr(self, name, self._recorder(name))

    def _recorder(self, name: str) -> Any:
        def call(*args: Any) -> None:
            self.calls.append((name, args))

        return call

    def getbuffer(self, image: Image.Image) -> bytearray:
        if image.size == (self.height, self.width):
            image = image.rotate(90, expand=True)
        assert image.size == (self.width, self.height)
        return bytearray(image.convert("1").tobytes("raw"))

    def names(self) -> list[str]:
        return [n for n, _ in self.calls]


def _decode(epd: FakeEPD, buf: bytes, size: tuple[int, int]) -> bytes:
    """The buffer back as one byte per landscape pixel: 0 where ink was sent."""
    img = Image.frombytes("1", (epd.width, epd.height), bytes(buf))
    if img.size != size:
        img = img.rotate(-90, expand=True)
    return bytes(0 if px == 0 else 1 for px in img.convert("L").tobytes())


def _where(frame: Image.Image, index: int) -> bytes:
    return bytes(0 if px == index else 1 for px in frame.tobytes())


def test_waveshare_2in13_v4_partial_after_a_base_image_then_full_again() -> None:
    """docs/display.md: the 2.13" V4 refreshes partially with displayPartial after displayPartBaseImage."""
    epd = FakeEPD(122, 250, ("init", "displayPartBaseImage", "displayPartial", "display", "sleep"))
    panel = WavesharePanel("epd2in13_V4", epd)
    assert panel.supports_partial and panel.spec.name == "2.13"
    frame = _frame("2.13")
    panel.show(frame, partial=True)  # nothing on the glass yet: must be a full refresh
    panel.show(frame, partial=True)
    panel.show(frame, partial=False)
    assert epd.names() == [
        "init",
        "displayPartBaseImage",
        "displayPartial",
        "init",
        "displayPartBaseImage",
    ]
    buf = epd.calls[1][1][0]
    assert _decode(epd, buf, frame.size) == _where(frame, BLACK)
    panel.close()
    assert epd.names()[-1] == "sleep"


def test_waveshare_2in9_v2_uses_display_base_and_display_partial() -> None:
    epd = FakeEPD(128, 296, ("init", "display_Base", "display_Partial", "sleep"))
    panel = WavesharePanel("epd2in9_V2", epd)
    panel.show(_frame("2.9"))
    panel.show(_frame("2.9"), partial=True)
    assert epd.names() == ["init", "display_Base", "display_Partial"]


def test_waveshare_7in5_v2_partial_is_init_part_and_a_full_window() -> None:
    epd = FakeEPD(800, 480, ("init", "display", "init_part", "display_Partial", "sleep"))
    panel = WavesharePanel("epd7in5_V2", epd)
    frame = _frame("7.5")
    for partial in (False, True, True):
        panel.show(frame, partial=partial)
    assert epd.names() == ["init", "display", "init_part", "display_Partial", "display_Partial"]
    assert epd.calls[3][1][1:] == (0, 0, 800, 480)


def test_waveshare_three_colour_sends_black_and_red_layers_and_has_no_partial() -> None:
    epd = FakeEPD(122, 250, ("init", "display", "sleep"))
    panel = WavesharePanel("epd2in13b_V4", epd)
    assert not panel.supports_partial and panel.full_refresh_s >= 15
    frame = _frame("2.13", "bwr")
    assert ACCENT in frame.tobytes(), "the frame must have red for this test to mean anything"
    panel.show(frame, partial=True)
    assert epd.names() == ["init", "display"]
    black, red = epd.calls[1][1]
    assert _decode(epd, black, frame.size) == _where(frame, BLACK)
    assert _decode(epd, red, frame.size) == _where(frame, ACCENT)


def test_layer_keeps_inks_apart_without_dithering() -> None:
    frame = _frame("2.9", "bwr")
    red = layer(frame, ACCENT)
    assert red.mode == "1"
    assert bytes(0 if px == 0 else 1 for px in red.convert("L").tobytes()) == _where(frame, ACCENT)


def test_waveshare_unknown_model_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError, match="epd2in13_V4"):
        WavesharePanel("epd9in9", FakeEPD(1, 1, ()))


def test_waveshare_needs_a_model() -> None:
    with pytest.raises(ConfigError, match=r"display\.model"):
        open_panel("waveshare")


def test_waveshare_panel_option_must_match_the_model() -> None:
    epd = FakeEPD(122, 250, ("init",))
    with pytest.raises(ConfigError, match="does not match"):
        open_panel("waveshare", model="epd2in13_V4", epd=epd, panel="7.5")


def test_waveshare_without_the_package_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "epaper", None)
    with pytest.raises(DriverUnavailable, match=r"rhuna-table\[waveshare\]"):
        open_panel("waveshare", model="epd2in13_V4")


def test_waveshare_off_a_pi_is_a_clear_error_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The vendor module raises at import time off a Raspberry Pi (docs/display.md)."""

    def epaper(model: str) -> Any:
        raise OSError("cannot open shared object file: DEV_Config_64.so")

    monkeypatch.setitem(sys.modules, "epaper", types.SimpleNamespace(epaper=epaper))
    with pytest.raises(DriverUnavailable, match="Raspberry Pi"):
        open_panel("waveshare", model="epd2in13_V4")


def test_every_waveshare_model_maps_to_a_panel_we_lay_out() -> None:
    for name, model in MODELS.items():
        assert model.panel in ("2.13", "2.9", "4.2", "7.5"), name
        assert (model.partial is None) == (model.partial_refresh_s is None), name


def test_inky_colour_board_driven_in_black_and_white_works_without_its_third_ink() -> None:
    """The config's default colour is bw: a red board must not refuse it (it just stays unused)."""
    device = FakeInky(colour="red")
    panel = InkyPanel(device, colour="bw")
    assert panel.colour == "bw"
    frame = _frame("2.13", "bw")
    panel.show(frame)
    assert device.image is not None and ACCENT not in device.image.tobytes()
