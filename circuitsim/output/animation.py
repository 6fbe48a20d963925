"""A result's motion as one self-contained HTML page: the bodies as boxes sized from their
inertia, joints as markers, sliders and springs as rods, a time slider, play/pause and
speed. The page embeds the poses and the renderer (three.js, vendored in
circuitsim/output/vendor/three with its licence): it opens offline in any browser with WebGL.

The page opens paused at the instant named by its URL fragment (``page.html#t=0.75``),
else it plays from the start; pausing writes the instant into the address, so a link
shows the chosen moment.

    anim = result.animate("dp.html")     # writes the file; in a notebook it shows inline
"""
from __future__ import annotations

import base64
import hashlib
import html
import json
from pathlib import Path

import numpy as np

from ..elements import quaternion
from ..errors import CircuitsimError
from .files import replaced_text
from .scene import POSE

VENDOR = Path(__file__).with_name("vendor") / "three"
THREE_FILE = VENDOR / "three.module.min.js"
THREE_VERSION = "0.170.0"
# sha256 of build/three.module.min.js in the npm package three@0.170.0 (checked by a test)
THREE_SHA256 = "08fd7545d13d2c7fb65ab691530a802dafefd638596501854f267d0fb13c39e7"
TEMPLATE = Path(__file__).with_name("animation.html")
MAX_FRAMES = 2000        # output times embedded at most (evenly picked, the last included)
FOV_DEG = 40.0           # vertical field of view of the camera
VIEW_DIRECTION = (0.55, -0.75, 0.45)   # eye from the target: in (h1, h2, up) of the scene
# one hue per body, saturated so that bodies stand out from the grey floor and markers
PALETTE = ("#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#17becf",
           "#e377c2", "#bcbd22", "#8c564b", "#7f7fff")


class Animation:
    """A written (or in-memory) animation page: ``html`` the page, ``path`` the file;
    in a notebook it displays inline (the page in an iframe; not sandboxed, because a
    sandboxed frame cannot load the embedded renderer from memory)."""

    def __init__(self, page: str, path: Path | None = None):
        self.html = page
        self.path = path

    def __repr__(self) -> str:
        return f"<Animation {self.path or '(not written)'}: {len(self.html) / 1e6:.2f} MB>"

    def _repr_html_(self) -> str:
        return (f'<iframe srcdoc="{html.escape(self.html, quote=True)}" '
                'style="width:100%;height:520px;border:1px solid #ccc"></iframe>')


def animate(result, path=None, max_frames: int | None = None) -> Animation:
    """The animation page of ``result`` (written to ``path`` if given)."""
    page = render(result, max_frames or MAX_FRAMES)
    if path is None:
        return Animation(page)
    with replaced_text(path) as (text, target):
        text.write(page)
    return Animation(page, target)


def check_animatable(scene, recorded) -> None:
    """CircuitsimError unless ``scene`` has bodies whose poses are all in ``recorded``."""
    if scene is None or not scene.bodies:
        raise CircuitsimError("nothing to animate: no bodies in the results")
    missing = scene.missing(recorded)
    if missing:
        shown = ", ".join(missing[:6]) + (", ..." if len(missing) > 6 else "")
        raise CircuitsimError("the animation needs every body's pose, not recorded: "
                              f"{shown} (run with record_poses=True, or add them to .probe)")


def frame_indices(count: int, max_frames: int) -> np.ndarray:
    """The output rows embedded: all of them, or ``max_frames`` evenly spaced ones with
    the first and the last."""
    if count <= max_frames:
        return np.arange(count)
    return np.unique(np.round(np.linspace(0, count - 1, max(max_frames, 2))).astype(int))


def render(result, max_frames: int = MAX_FRAMES) -> str:
    """The page as text."""
    scene = result.scene
    check_animatable(scene, result.names)
    if len(result.t) == 0:
        raise CircuitsimError("nothing to animate: the results hold no output time")
    rows = frame_indices(len(result.t), max_frames)
    poses = np.stack([np.stack([result[f"{body}.{p}"][rows] for p in POSE], axis=-1)
                      for body, _ in scene.bodies], axis=1)          # (frames, bodies, 7)
    data = page_data(result, scene, rows, poses)
    replacements = {
        "__TITLE__": html.escape(data["title"]),
        "__THREE_VERSION__": THREE_VERSION,
        # "</" cannot end the JSON's script element early when written as "<\/"
        "__DATA__": json.dumps(data).replace("</", "<\\/"),
        "__THREE__": three_source(),
    }
    page = TEMPLATE.read_text(encoding="utf-8")
    for key, value in replacements.items():
        head, sep, tail = page.partition(key)
        page = head + value + tail
    return page


def three_source() -> str:
    """The vendored three.js, checked against its recorded hash."""
    raw = THREE_FILE.read_bytes()
    if hashlib.sha256(raw).hexdigest() != THREE_SHA256:
        raise CircuitsimError(f"{THREE_FILE}: not the three.js {THREE_VERSION} this "
                              "circuitsim was shipped with (hash differs)")
    return raw.decode("utf-8")


def page_data(result, scene, rows: np.ndarray, poses: np.ndarray) -> dict:
    """What the page reads: times and poses (float64, base64), the bodies' boxes and
    colours, the links' ends, the camera and the floor."""
    index = {name: i for i, (name, _) in enumerate(scene.bodies)}
    links = [{"name": link.name, "kind": link.kind,
              "ends": [[index[end.body] if end.body else -1, list(end.offset)]
                       for end in link.ends]} for link in scene.links]
    points = world_points(scene, poses)
    low, high = points.min(axis=0), points.max(axis=0)
    half_box = max(0.5 * float(np.linalg.norm(sides)) for _, sides in scene.bodies)
    radius = max(0.5 * float(np.linalg.norm(high - low)) + half_box, 1e-3)
    centre = 0.5 * (low + high)
    up = np.asarray(scene.up, dtype=float)
    bottom = float((points @ up).min()) - half_box       # the floor: below everything
    return {
        "title": result.title or result.case or "circuitsim",
        "status": result.status,
        "message": result.message,
        "times": _base64(result.t[rows]),
        "poses": _base64(poses),
        "bodies": [{"name": name, "sides": list(sides), "colour": PALETTE[i % len(PALETTE)]}
                   for i, (name, sides) in enumerate(scene.bodies)],
        "links": links,
        "camera": camera(centre, radius, up),
        "marker": 0.02 * radius,
        "floor": {"centre": list(centre + (bottom - centre @ up) * up),
                  "size": float(4.0 * radius)},
    }


def camera(target: np.ndarray, radius: float, up: np.ndarray) -> dict:
    """A perspective camera looking at ``target`` from VIEW_DIRECTION, far enough that a
    sphere of ``radius`` around it fills the height of the view."""
    h1 = np.array([1.0, 0.0, 0.0]) if abs(up[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    h1 = h1 - (h1 @ up) * up
    h1 /= np.linalg.norm(h1)
    h2 = np.cross(up, h1)
    a, b, c = VIEW_DIRECTION
    direction = a * h1 + b * h2 + c * up
    direction /= np.linalg.norm(direction)
    distance = 1.1 * radius / np.sin(np.radians(FOV_DEG) / 2)
    return {"eye": list(target + distance * direction), "target": list(target),
            "up": list(up), "fov": FOV_DEG, "near": distance / 100, "far": distance * 10}


def world_points(scene, poses: np.ndarray) -> np.ndarray:
    """Every body's centre and every attachment point at every embedded frame (…, 3)."""
    centres = poses[..., :3]
    points = [centres.reshape(-1, 3)]
    index = {name: i for i, (name, _) in enumerate(scene.bodies)}
    for link in scene.links:
        for end in link.ends:
            if end.body is None:
                points.append(np.asarray(end.offset, dtype=float)[None, :])
            else:
                pose = poses[:, index[end.body]]
                A = quaternion.dcm(pose[:, 3:])
                points.append(pose[:, :3] + A @ np.asarray(end.offset, dtype=float))
    return np.concatenate(points)


def _base64(values: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(values, dtype="<f8").tobytes()).decode()
