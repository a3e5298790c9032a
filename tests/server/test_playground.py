"""The playground page (GET /) in a real browser: Debian's headless Chromium driven by Selenium
types a rule and a situation and reads the probability bars, runs an exam with a miss, shows the
server's error message, loads and saves a task file, works from the keyboard, and is readable at
375 px wide (the screenshot is checked not to be blank)."""

from __future__ import annotations

import io
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest

from PIL import Image
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.environ.get("MEADOW_CLI", os.path.join(ROOT, "build", "meadow-mind"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def readme_nginx(listen: int, upstream: int, tmp: str) -> str:
    """The nginx example of docs/commands.md ("Behind a proxy"), pointed at this test's server
    and a free port, wrapped in the few top-level lines a standalone nginx needs (pid, logs,
    temp paths under `tmp`)."""
    with open(os.path.join(ROOT, "docs", "commands.md"), encoding="utf-8") as f:
        block = re.search(r"```nginx\n(.*?)```", f.read(), re.S).group(1)
    block = re.sub(r"server 127\.0\.0\.1:\d+;\s*", "", block)
    block = block.replace("least_conn;", f"least_conn; server 127.0.0.1:{upstream};")
    block = block.replace("listen 80;", f"listen 127.0.0.1:{listen};")
    temps = " ".join(
        f"{k}_temp_path {tmp}/{k};" for k in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    return (
        f"daemon off; pid {tmp}/nginx.pid; error_log {tmp}/error.log;\n"
        f"events {{}}\nhttp {{ access_log off; {temps}\n{block}}}\n"
    )


class PlaygroundTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.server = subprocess.Popen(
            [CLI, "serve", "--port", "0", "--quiet", "--workers", "4"],
            stdout=subprocess.PIPE,
            text=True,
        )
        line = cls.server.stdout.readline()  # "listening on http://127.0.0.1:PORT (model ...)"
        if not line.startswith("listening on "):
            cls.server.kill()
            raise RuntimeError("serve did not start: " + line)
        cls.base = line.split()[2]
        opts = webdriver.ChromeOptions()
        opts.binary_location = shutil.which("chromium")
        for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
            opts.add_argument(arg)
        opts.add_argument("--window-size=1024,900")
        opts.add_experimental_option("prefs", {"download.default_directory": cls.tmp.name})
        cls.driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=opts)

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        cls.server.terminate()
        cls.server.wait(timeout=30)
        cls.server.stdout.close()
        cls.tmp.cleanup()

    def setUp(self):
        self.driver.set_window_size(1024, 900)
        self.driver.get(self.base + "/")
        self.wait_for(lambda: self.text("letter") in ("A", "B"), "the first decision")

    # -- helpers ---------------------------------------------------------------------------------
    def el(self, id_):
        return self.driver.find_element(By.ID, id_)

    def text(self, id_):
        return self.el(id_).text.strip()

    def wait_for(self, cond, what, timeout=30):
        try:
            WebDriverWait(self.driver, timeout).until(lambda _: cond())
        except Exception:
            self.fail(f"timed out waiting for {what}; error box: {self.text('error')!r}")

    def retype(self, element, text):
        element.send_keys(Keys.CONTROL, "a")
        element.send_keys(Keys.DELETE)
        element.send_keys(text)

    def bars(self):
        out = {}
        for row in self.driver.find_elements(By.CSS_SELECTOR, "#bars .barrow"):
            meter = row.find_element(By.CSS_SELECTOR, "[role=meter]")
            out[row.get_attribute("data-letter")] = float(meter.get_attribute("aria-valuenow"))
        return out

    # -- tests -----------------------------------------------------------------------------------
    def test_typing_moves_the_bars(self):
        self.retype(self.el("rule"), "If the lamp is lit, choose B. If the lamp is dark, choose A.")
        self.retype(self.el("state"), "the lamp is lit")
        self.wait_for(lambda: self.text("letter") == "B", "B for a lit lamp")
        bars = self.bars()
        self.assertEqual(set(bars), {"A", "B"})
        self.assertGreater(bars["B"], bars["A"])
        self.assertAlmostEqual(sum(bars.values()), 1.0, delta=0.01)
        self.assertRegex(self.text("stats"), r"margin [0-9.]+ · Σ .* · [0-9.]+ ms")
        self.retype(self.el("state"), "the lamp is dark")
        self.wait_for(lambda: self.text("letter") == "A", "A for a dark lamp")
        self.assertGreater(self.bars()["A"], 0.5)

    def test_exam_highlights_the_misses(self):
        self.retype(self.el("rule"), "If the lamp is lit, choose B. If the lamp is dark, choose A.")
        rows = self.driver.find_elements(By.CSS_SELECTOR, "#exam tbody tr")
        self.assertEqual(len(rows), 2)
        self.retype(rows[0].find_element(By.CSS_SELECTOR, "td.status input"), "the lamp is lit")
        self.retype(rows[0].find_element(By.CSS_SELECTOR, "td.expect input"), "B")
        self.retype(rows[1].find_element(By.CSS_SELECTOR, "td.status input"), "the lamp is dark")
        self.retype(rows[1].find_element(By.CSS_SELECTOR, "td.expect input"), "B")  # wrong on purpose
        self.el("run-exam").click()
        self.wait_for(lambda: "right" in self.text("exam-summary"), "the exam")
        self.assertEqual(self.text("exam-summary"), "1/2 right, 1 missed")
        rows = self.driver.find_elements(By.CSS_SELECTOR, "#exam tbody tr")
        self.assertEqual([r.get_attribute("class") for r in rows], ["right", "miss"])
        self.assertEqual(rows[1].find_element(By.CSS_SELECTOR, "td.got").text, "A!")

    def test_keyboard_runs_the_exam(self):
        self.el("rule").click()
        self.el("rule").send_keys(Keys.TAB)  # the first option's letter
        active = self.driver.switch_to.active_element
        self.assertEqual(active.get_attribute("aria-label"), "letter of option 1")
        self.driver.execute_script("document.getElementById('run-exam').focus()")
        self.driver.switch_to.active_element.send_keys(Keys.ENTER)
        self.wait_for(lambda: "right" in self.text("exam-summary"), "the exam from the keyboard")

    def test_server_errors_are_shown(self):
        texts = self.driver.find_elements(By.CSS_SELECTOR, "#options input.text")
        self.retype(texts[1], " ")
        self.wait_for(lambda: self.el("error").is_displayed(), "the error box")
        self.assertIn("option B has no text", self.text("error"))
        self.retype(texts[1], "go")
        self.wait_for(lambda: not self.el("error").is_displayed(), "the error box to clear")

    def test_load_and_save_a_task_file(self):
        self.el("load").send_keys(os.path.join(ROOT, "tasks", "cartpole.toml"))
        self.wait_for(lambda: "pole" in self.el("rule").get_attribute("value"), "the loaded rule")
        self.assertEqual(len(self.driver.find_elements(By.CSS_SELECTOR, "#exam tbody tr")), 10)
        self.el("run-exam").click()
        self.wait_for(lambda: "right" in self.text("exam-summary"), "the cartpole exam")
        self.assertEqual(self.text("exam-summary"), "10/10 right, 0 missed")
        self.retype(
            self.el("rule"), "Choose A if the pole is falling left. Choose B if the pole is falling right."
        )
        self.el("save").click()
        saved = os.path.join(self.tmp.name, "cartpole.toml")
        deadline = time.time() + 20
        while not os.path.exists(saved) and time.time() < deadline:
            time.sleep(0.1)
        with open(saved, encoding="utf-8") as f:
            text = f.read()
        self.assertIn("Choose A if the pole is falling left.", text)
        self.assertIn("[perceiver.words.lean]", text)  # the file's perceiver is kept

    def test_readable_at_375_px(self):
        self.driver.set_window_size(375, 812)
        self.driver.get(self.base + "/")
        self.wait_for(lambda: self.text("letter") in ("A", "B"), "the first decision")
        width = self.driver.execute_script("return document.documentElement.scrollWidth")
        self.assertLessEqual(width, self.driver.execute_script("return window.innerWidth"))
        png = self.driver.get_screenshot_as_png()
        path = os.environ.get("MEADOW_PLAYGROUND_SHOT")
        if path:
            with open(path, "wb") as f:
                f.write(png)
        img = Image.open(io.BytesIO(png)).convert("RGB")
        colours = img.getcolors(maxcolors=1 << 20)
        self.assertGreater(len(colours), 20, "the screenshot is (nearly) one colour")
        background = max(colours)[0] / (img.width * img.height)
        self.assertLess(background, 0.97, "the screenshot is nearly blank")


if __name__ == "__main__":
    sys.exit(unittest.main())


@unittest.skipUnless(shutil.which("nginx"), "nginx is not installed (scripts/setup.sh installs it)")
class PlaygroundBehindNginx(PlaygroundTest):
    """The same page through the nginx example of docs/commands.md."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.nginx_dir = tempfile.mkdtemp()
        os.chmod(cls.nginx_dir, 0o777)  # nginx's workers run as nobody
        port = free_port()
        conf = os.path.join(cls.nginx_dir, "nginx.conf")
        with open(conf, "w", encoding="utf-8") as f:
            f.write(readme_nginx(port, int(cls.base.rsplit(":", 1)[1]), cls.nginx_dir))
        cls.nginx = subprocess.Popen(
            ["nginx", "-c", conf, "-p", cls.nginx_dir], stderr=subprocess.PIPE, text=True
        )
        deadline = time.time() + 20
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            cls.nginx.kill()
            raise RuntimeError("nginx did not start: " + cls.nginx.stderr.read())
        cls.base = f"http://127.0.0.1:{port}"

    @classmethod
    def tearDownClass(cls):
        cls.nginx.terminate()
        cls.nginx.wait(timeout=30)
        cls.nginx.stderr.close()
        shutil.rmtree(cls.nginx_dir, ignore_errors=True)
        super().tearDownClass()
