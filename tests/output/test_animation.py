"""The 3D animation page: the vendored renderer is the pinned file, the page embeds the
results' poses exactly, the scene's geometry is the mechanism's, and (where Chromium is
installed) the rendered page shows each body where the results put it."""
import base64
import hashlib
import html as html_text
import json
import re
import shutil
import subprocess

import numpy as np
import pytest

import circuitsim
from circuitsim import cli
from circuitsim.output import animation
from circuitsim.elements import quaternion
from circuitsim.errors import CircuitsimError
from circuitsim.output.scene import box_sides
from helpers import netlist_path

BAR = 40                   # px: the control bar under the 3D view (animation.html)


@pytest.fixture(scope="module")
def pendulum():
    """The 3D double pendulum of netlists/, position model: two rods on ball joints."""
    return circuitsim.load(netlist_path("double_pendulum")).simulate()


def embedded(page: str) -> dict:
    data = json.loads(re.search(r'<script id="circuitsim-data" type="application/json">'
                                r'(.*?)</script>', page, re.S).group(1).replace("<\\/", "</"))
    for key in ("times", "poses"):
        data[key] = np.frombuffer(base64.b64decode(data[key]), dtype="<f8")
    return data


def test_vendored_three_js_is_the_pinned_release_with_its_licence():
    raw = animation.THREE_FILE.read_bytes()
    assert hashlib.sha256(raw).hexdigest() == animation.THREE_SHA256
    licence = (animation.VENDOR / "LICENSE").read_text()
    assert "MIT License" in licence and "three.js authors" in licence
    assert "WebGLRenderer" in raw.decode()


def test_page_embeds_the_poses_of_the_results_exactly(pendulum, tmp_path):
    anim = pendulum.animate(tmp_path / "dp.html")
    page = anim.path.read_text()
    assert page == anim.html
    data = embedded(page)
    assert np.array_equal(data["times"], pendulum.t)
    poses = data["poses"].reshape(len(pendulum.t), 2, 7)
    for i, body in enumerate(("B1", "B2")):
        for j, p in enumerate(("x", "y", "z", "q0", "q1", "q2", "q3")):
            assert np.array_equal(poses[:, i, j], pendulum[f"{body}.{p}"])
    assert [b["name"] for b in data["bodies"]] == ["B1", "B2"]
    assert {link["name"]: link["kind"] for link in data["links"]} == {"J1": "joint",
                                                                       "J2": "joint"}


def test_page_is_self_contained_and_small(pendulum):
    page = pendulum.animate().html
    assert len(page.encode()) < 2e6
    # nothing fetched: no external script, stylesheet, image or font
    assert not re.search(r'<(script|link|img)[^>]+(src|href)=', page)
    assert "@import" not in page and "url(" not in page.split("<script", 1)[0]
    assert page.count(animation.THREE_VERSION) >= 1


def test_notebook_display_is_the_page_in_an_iframe(pendulum):
    anim = pendulum.animate()
    frame = anim._repr_html_()
    assert frame.startswith("<iframe srcdoc=")
    assert html_text.unescape(re.search(r'srcdoc="(.*?)"', frame, re.S).group(1)) == anim.html


def test_long_results_are_thinned_evenly_keeping_both_ends(pendulum):
    data = embedded(pendulum.animate(max_frames=50).html)
    rows = animation.frame_indices(len(pendulum.t), 50)
    assert len(rows) == 50 and rows[0] == 0 and rows[-1] == len(pendulum.t) - 1
    assert np.array_equal(data["times"], pendulum.t[rows])
    assert np.array_equal(data["poses"].reshape(50, 2, 7)[:, 1, 2], pendulum["B2.z"][rows])


def test_box_sides_reproduce_the_inertia_of_a_uniform_box():
    m, (a, b, c) = 3.0, (0.4, 0.25, 0.1)
    J = (m * (b * b + c * c) / 12, m * (a * a + c * c) / 12, m * (a * a + b * b) / 12)
    assert np.allclose(box_sides(m, J), (a, b, c), rtol=1e-12)
    # a slender rod (tiny axial moment) keeps a visible thickness; a point mass a size
    rod = box_sides(1.0, (1 / 12 * 0.25, 1 / 12 * 0.25, 1e-9))
    assert rod[2] == pytest.approx(0.5, rel=1e-6) and rod[0] == pytest.approx(0.04)
    assert box_sides(2.0, (0.0, 0.0, 0.0)) == (0.05, 0.05, 0.05)


def test_scene_attachment_points_follow_the_bodies(pendulum):
    """J2's point held by B1 and by B2 coincide along the motion, and J1's point on B1
    stays at the ground point (position model: gaps at the integration error)."""
    scene = pendulum.scene
    links = {link.name: link for link in scene.links}

    def world(end):
        if end.body is None:
            return np.asarray(end.offset)
        q = np.stack([pendulum[f"{end.body}.q{k}"] for k in range(4)], axis=1)
        r = np.stack([pendulum[f"{end.body}.{a}"] for a in "xyz"], axis=1)
        return r + quaternion.dcm(q) @ np.asarray(end.offset)
    ground, b1 = (world(end) for end in links["J1"].ends)
    assert links["J1"].ends[0].body is None and np.allclose(ground, 0.0)
    assert np.abs(b1).max() < 1e-5
    upper, lower = (world(end) for end in links["J2"].ends)
    assert np.abs(upper - lower).max() < 1e-5
    assert np.ptp(upper[:, 0]) > 0.2            # and it does move
    assert scene.up == (0.0, 0.0, 1.0)          # gravity along -z


def test_animation_needs_the_poses_and_says_which_are_missing(tmp_path):
    net = circuitsim.load(netlist_path("gyroscope"))       # a .probe list without poses
    res = net.simulate(t_end=0.05)
    with pytest.raises(CircuitsimError, match=r"not recorded: outer\.x.*record_poses=True"):
        res.animate()
    res = net.simulate(t_end=0.05, record_poses=True)
    data = embedded(res.animate().html)
    assert np.array_equal(data["poses"].reshape(len(res.t), -1, 7)[:, 0, 3], res["outer.q0"])


@pytest.mark.parametrize("name", ["double_pendulum", "gyroscope", "manipulator",
                                  "landing_gear"])
def test_cli_animates_the_examples(name, tmp_path, capsys):
    html = tmp_path / f"{name}.html"
    assert cli.main(["run", str(netlist_path(name)), "--animate", str(html)]) == 0
    assert f"animation -> {html}" in capsys.readouterr().out
    data = embedded(html.read_text())
    assert len(data["bodies"]) >= 2 and html.stat().st_size < 2e6
    assert len(data["times"]) == len(data["poses"]) // (7 * len(data["bodies"]))


def test_cli_refuses_an_animation_of_a_circuit_without_bodies(tmp_path, capsys):
    code = cli.main(["run", str(netlist_path("dcmotor")), "--animate",
                     str(tmp_path / "m.html")])
    assert code == 2
    err = capsys.readouterr().err
    assert "--animate: " in err and "has no bodies to draw" in err


def test_a_failed_run_still_animates_what_it_computed(tmp_path, capsys):
    """A force undefined after t = 0.3 s stops the run; the motion up to there is drawn."""
    text = netlist_path("pendulum").read_text() + (
        "\nforce Fblow B1 F=(0, 0, {sqrt(0.3 - time)})\n")
    path = tmp_path / "blow.cir"
    path.write_text(text)
    html = tmp_path / "blow.html"
    assert cli.main(["run", str(path), "--animate", str(html), "--quiet",
                     "--out", str(tmp_path / "blow.csv")]) == 3
    err = capsys.readouterr().err
    assert f"animation -> {html}" in err
    data = embedded(html.read_text())
    assert data["status"] == "failed" and 0.0 < data["times"][-1] < 0.3


# --- the page rendered by a real browser ------------------------------------------------
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
WIDTH, HEIGHT = 800, 600


def screenshot(page, t, png, profile):
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                    "--enable-unsafe-swiftshader", "--disable-quic", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update",
                    "--disable-sync", f"--user-data-dir={profile}",
                    f"--window-size={WIDTH},{HEIGHT}", "--virtual-time-budget=8000",
                    f"--screenshot={png}", f"file://{page}#t={t}"],
                   check=True, capture_output=True, timeout=120)
    from matplotlib.image import imread
    return imread(png)[..., :3]


def projected(camera, point, width, height):
    """Pixel (column, row) of a global point seen by the page's perspective camera,
    written here from the camera's eye, target, up and vertical field of view."""
    eye, target, up = (np.asarray(camera[k]) for k in ("eye", "target", "up"))
    back = (eye - target) / np.linalg.norm(eye - target)
    right = np.cross(up, back)
    right /= np.linalg.norm(right)
    true_up = np.cross(back, right)
    d = np.asarray(point) - eye
    depth = -(d @ back)
    focal = 1.0 / np.tan(np.radians(camera["fov"]) / 2)
    ndc = np.array([(d @ right) / depth * focal * height / width, (d @ true_up) / depth * focal])
    return np.array([(ndc[0] + 1) / 2 * width, (1 - ndc[1]) / 2 * height])


def body_pixels(image, colour):
    """Centroid (column, row) of the pixels of the body's hue (shading changes their
    brightness, not their hue; floor, text and markers are grey)."""
    from matplotlib.colors import rgb_to_hsv, to_rgb
    hsv = rgb_to_hsv(image)
    hue = rgb_to_hsv(np.array(to_rgb(colour)))[0]
    dh = np.abs((hsv[..., 0] - hue + 0.5) % 1.0 - 0.5)
    rows, cols = np.nonzero((dh < 0.03) & (hsv[..., 1] > 0.4) & (hsv[..., 2] > 0.15))
    return np.array([cols.mean(), rows.mean()]), len(rows)


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (Debian: chromium)")
def test_chromium_draws_the_bodies_where_the_results_put_them(pendulum, tmp_path):
    page = tmp_path / "dp.html"
    pendulum.animate(page)
    data = embedded(page.read_text())
    moved = []
    for t in (0.5, 1.5):
        image = screenshot(page, t, tmp_path / f"t{t}.png", tmp_path / "profile")
        assert image.shape[:2] == (HEIGHT, WIDTH)
        view = image[:HEIGHT - BAR]
        k = int(np.argmin(np.abs(pendulum.t - t)))
        assert pendulum.t[k] == pytest.approx(t)
        for body in data["bodies"]:
            centre = [pendulum[f"{body['name']}.{a}"][k] for a in "xyz"]
            expected = projected(data["camera"], centre, WIDTH, HEIGHT - BAR)
            seen, count = body_pixels(view, body["colour"])
            assert count > 200, f"{body['name']} not drawn at t = {t}"
            assert np.linalg.norm(seen - expected) < 12, (body["name"], t, seen, expected)
            moved.append(expected)
    # the two instants put the bodies far apart: the page shows the instant it was asked
    assert np.linalg.norm(moved[0] - moved[2]) > 40 or np.linalg.norm(moved[1] - moved[3]) > 40
    # as a notebook shows it: the page inside an iframe of another page
    cell = tmp_path / "cell.html"
    cell.write_text(f"<html><body>{pendulum.animate()._repr_html_()}</body></html>")
    image = screenshot(cell, 0, tmp_path / "cell.png", tmp_path / "profile")
    assert all(body_pixels(image, body["colour"])[1] > 100 for body in data["bodies"])
