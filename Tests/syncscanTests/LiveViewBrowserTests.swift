import Foundation
import SystemCalls
import TestSupport
import Testing

/// A real browser (headless Chromium) loads the page while syncscan scans a live pipe: the code's
/// text is in the page's DOM and its outline is drawn on the picture at the code's corners.
@Suite(.offThePool) struct LiveViewBrowserTests {
    /// `chromium --headless=new` started on `url` with `arguments` (its stdout to a file): one page, one window of 1200x700.
    private func startChromium(_ arguments: [String], url: String) throws -> (browser: ChildProcess, stdout: TemporaryFile) {
        let out = try TemporaryFile(contents: [], suffix: ".out")
        let browser = try ChildProcess(["chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                                        "--window-size=1200,700"] + arguments + [url], stdout: .file(out.path))
        return (browser, out)
    }

    /// Waits up to `limit` for a browser from `startChromium` to exit (0 expected); its stdout, or
    /// `nil` when it had not finished and was killed: a browser stopped and continued (a loaded
    /// or suspended machine) can wedge, and the callers then open the page again.
    private func finished(_ started: (browser: ChildProcess, stdout: TemporaryFile), _ arguments: [String],
                          limit: Duration = .seconds(120)) -> [UInt8]? {
        guard let status = started.browser.wait(timeout: limit).map(ChildProcess.exitStatus) else {
            started.browser.signal(SIGKILL); _ = started.browser.wait()
            return nil
        }
        #expect(status == 0, "chromium \(arguments): exit \(status)")
        return [UInt8](FileManager.default.contents(atPath: started.stdout.path) ?? Data())
    }

    /// Runs `chromium --headless=new` with `arguments` and `url`; its stdout (empty when it had to
    /// be killed after `limit`: one wedged browser must leave time for the pages opened after it).
    private func chromium(_ arguments: [String], url: String, limit: Duration = .seconds(120)) throws -> [UInt8] {
        finished(try startChromium(arguments, url: url), arguments, limit: limit) ?? []
    }

    /// What a page screenshot to `png` by a browser from `startChromium` shows, once it finished.
    private enum Page {
        /// Not showing yet, no fault of the page's (why): the browser wedged and was killed, it
        /// wrote no screenshot, or the screenshot has no picture or no outline of either colour
        /// anywhere on it (its events not there yet). Such a page is opened again.
        case notShowing(String)
        /// Showing: what is wrong in its screenshot, which decides.
        case shown(misses: [String])
    }

    private func page(_ started: (browser: ChildProcess, stdout: TemporaryFile), _ arguments: [String], png: String,
                      directory: ScreenshotDirectory, _ misses: (Screenshot) throws -> [String]) throws -> Page {
        guard finished(started, arguments) != nil else { return .notShowing("had not finished: killed") }
        guard FileManager.default.fileExists(atPath: png) else { return .notShowing("wrote no screenshot") }
        let shot = try Screenshot(png: png, directory: directory)
        guard shot.hasScene(at: (600, 460)) else { return .notShowing("showed no picture") }
        guard shot.hasAnyOutline() else { return .notShowing("showed no outline") }
        return .shown(misses: try misses(shot))
    }

    /// What the first page opened on `url` with `arguments` that shows (`Page`) misses, each
    /// followed by the number of pages opened: only a page not showing yet is opened again, until a
    /// hang's deadline. `first` is a browser started already; `kept` sees each screenshot and its
    /// page's number.
    private func firstShown(_ url: String, _ arguments: [String], png: String, directory: ScreenshotDirectory,
                            first: (browser: ChildProcess, stdout: TemporaryFile)? = nil, kept: (String, Int) -> Void = { _, _ in },
                            _ misses: (Screenshot) throws -> [String]) throws -> [String] {
        var started = first, shown: [String]?, notShowing = "", pages = 0
        try waitUntil(every: .milliseconds(100)) {
            pages += 1
            if started == nil { try? FileManager.default.removeItem(atPath: png) }
            let browser = try started ?? startChromium(arguments, url: url)
            started = nil
            let result = try page(browser, arguments, png: png, directory: directory, misses)
            kept(png, pages)
            switch result {
            case .notShowing(let why): notShowing = why; return false
            case .shown(let misses): shown = misses; return true
            }
        }
        return (shown ?? ["no page showed: the last \(notShowing)"]).map { "\($0) (page \(pages))" }
    }

    @Test func theCodesTextAndOutlineAppearInTheBrowser() throws {
        let live = try LiveViewDaemon()
        let url = "http://127.0.0.1:\(live.port)/"
        // The code's text in the recent codes list, frames/s scanned and captured, the mode. (The
        // outline and the text beside it are drawn once the picture is there, which a DOM dump
        // comes too early for: the screenshots show them.)
        let listed = "<td>\(LiveViewDaemon.payload)</td>"
        let mode = "<span id=\"mode\">640x480 GREY at 10 fps (the file's)</span>"
        let rate = /<span id="fps">[0-9]+\.[0-9]<\/span> frames\/s scanned of <span id="capture-fps">[0-9]+\.[0-9]<\/span> captured/
        // Once the daemon has read the code and its status has the rates and the mode, a page shows
        // each as soon as its events or its status come; a page dumped before (Chromium dumps the DOM
        // at load, which the picture's first part fires at once: its recent codes list still empty
        // or its state still "connecting") is opened again, until a hang's deadline. The first page
        // with both decides.
        #expect(waitUntil { live.daemon.stdoutLines.contains { $0?["type"] as? String == "code" } }, "a code line: \(live.daemon.stderr)")
        #expect(waitUntil(every: .milliseconds(200)) {
            let status = (try? live.get("/status")).flatMap { try? JSONSerialization.jsonObject(with: Data($0.body)) as? [String: Any] }
            return status?["rates"] as? [String: Any] != nil && status?["mode"] as? [String: Any] != nil
        }, "the rates and the mode in /status")
        // A browser that wedged and was killed dumped nothing: that page is opened again too (an
        // empty dump holds neither the empty list nor "connecting", so it is no page at all).
        var dom = "", pages = 0
        let showing = try waitUntil(every: .milliseconds(100)) {
            pages += 1
            dom = String(decoding: try chromium(["--timeout=4000", "--dump-dom"], url: url, limit: .seconds(60)), as: UTF8.self)
            return dom.contains("</html>") && dom.contains("<tbody id=\"recent\">")
                && !dom.contains("<tbody id=\"recent\"></tbody>") && !dom.contains("<span id=\"state\">connecting</span>")
        }
        #expect(showing, "no page showed the codes and the status in \(pages) pages: \(dom.suffix(1500))")
        #expect(dom.contains(listed), "the recent codes list (page \(pages)): \(dom.suffix(1500))")
        #expect(dom.contains(mode) && dom.contains(rate), "the rates and the mode (page \(pages)): \(dom.suffix(1500))")

        let directory = try ScreenshotDirectory()
        let png = directory.path("live-view.png")
        let corners = try #require(live.daemon.stdoutLines.compactMap { $0 }.first { $0["type"] as? String == "code" }?["corners"] as? [[Int]])
        // Chromium picks the moment of its screenshot (counted from its own start, so on a loaded
        // machine it can come before the first picture or code reached the page): the first page
        // showing the picture and an outline decides, checked in full.
        let missing = try firstShown(url, ["--timeout=4000", "--screenshot=\(png)"], png: png, directory: directory) { shot in
            // Away from the outline the picture is not green: the check sees the overlay, not the scene.
            shot.misses(.read, around: corners.map { (Double($0[0]), Double($0[1])) })
                + (shot.has(.read, nearFramePixel: (600, 460), within: 0) ? ["green away from the outline"] : [])
        }
        #expect(missing.isEmpty, "\(missing)")
        #expect(live.finish() == 0)
        let kept = ProcessInfo.processInfo.environment["LIVE_VIEW_SCREENSHOT"]
        if let kept { try? FileManager.default.copyItem(atPath: png, toPath: kept) }
    }

    /// Aiming: a readable QR code and a damaged one (finder patterns intact, the data wiped past
    /// repair) held in view with duplicate suppression on, as by default, so the readable one is
    /// one line at the start and never again. A page opened while they are in view outlines the
    /// readable one in green and the damaged one in magenta on screenshots taken 1 s and 8 s after
    /// it opened; neither colour is on the other code, and the damaged one never becomes a line.
    @Test func codesHeldInViewStayOutlinedAndAnUndecodableOneInAnotherColour() throws {
        var scene = GreyFrame(width: 640, height: 480, background: 200)
        let readable = scene.draw(try ModuleMatrix.qrCode(Array(LiveViewDaemon.payload.utf8)), centerX: 150, centerY: 140, moduleSize: 6)
        let damagedPayload = "damaged beyond repair, finders intact"
        let damaged = scene.draw(try ModuleMatrix.qrCode(damagedPayload), centerX: 470, centerY: 330, moduleSize: 5)
        scene = scene.withDataRowsWiped(of: damaged)
        // Duplicate suppression on, with a window longer than the test: a stopped machine's gap in
        // frame time must not report the code again (one line, however long the test takes).
        let live = try LiveViewDaemon(["--duplicate-window", "3600"], scene: scene, suppressingDuplicates: true)
        let directory = try ScreenshotDirectory()
        let page = try directory.heldOpenPage(live: "http://127.0.0.1:\(live.port)")
        // The codes have been in view since the first frame, and the line was written then.
        #expect(waitUntil { live.daemon.stdoutLines.contains { $0?["type"] as? String == "code" } },
                "the readable code's line: \(live.daemon.stderr)")
        func corners(_ code: RenderedCode) -> [(Double, Double)] { code.corners.map { ($0.x, $0.y) } }
        func misses(_ shot: Screenshot) -> [String] {
            shot.misses(.read, around: corners(readable)) + shot.misses(.undecoded, around: corners(damaged))
                + shot.strays(.read, around: corners(damaged)) + shot.strays(.undecoded, around: corners(readable))
        }
        // Both browsers open the page now; each screenshots at its --timeout.
        let (early, late) = (directory.path("1s.png"), directory.path("8s.png"))
        let earlyArguments = ["--timeout=1000", "--screenshot=\(early)"], lateArguments = ["--timeout=8000", "--screenshot=\(late)"]
        let lateBrowser = try startChromium(lateArguments, url: page)
        // LIVE_VIEW_SCREENSHOT=PREFIX keeps every screenshot checked, as PREFIX-NAME.png.
        let keep = { (name: String) in { (png: String, page: Int) in
            if let prefix = ProcessInfo.processInfo.environment["LIVE_VIEW_SCREENSHOT"] {
                try? FileManager.default.removeItem(atPath: "\(prefix)-\(name)-page\(page).png")
                try? FileManager.default.copyItem(atPath: png, toPath: "\(prefix)-\(name)-page\(page).png")
            }
        } }
        // One second is short on a loaded or stopped machine (Chromium's own start counts in it): a
        // page not showing yet is opened again while the codes are still in view; the first that
        // shows decides, both outlines checked in full.
        let earlyMisses = try firstShown(page, earlyArguments, png: early, directory: directory, kept: keep("1s"), misses)
        #expect(earlyMisses.isEmpty, "1 s after the page opened: \(earlyMisses)")
        // The same for 8 s: an outline that fades while the codes are in view fails.
        let lateMisses = try firstShown(page, lateArguments, png: late, directory: directory, first: lateBrowser, kept: keep("8s"), misses)
        #expect(lateMisses.isEmpty, "8 s after the page opened: \(lateMisses)")
        // Held in view for 10 s of the stream at least (100 frames at 10 frames/s), one line all along.
        #expect(waitUntil { live.framesFed >= 100 }, "100 frames fed: \(live.framesFed)")
        #expect(live.finish() == 0, "\(live.daemon.stderr)")
        let codes = live.daemon.stdoutLines.compactMap { $0 }.filter { $0["type"] as? String == "code" }
        #expect(codes.map { $0["text"] as? String } == [LiveViewDaemon.payload], "one line, the readable code's, never the damaged one")
    }

    /// A QR code held still in view (items, as by default) in frames of which some cannot be read:
    /// every 2.5 s of the stream, 8 frames read, 2 blank ones among them (within the item's grace)
    /// and 15 with the code's data wiped (its finders stand: detected, not decoded, which keeps the
    /// item alive), so per-frame reads drop out for 1.5 s at a time. Pages opened one after another
    /// are screenshot 2.5 s, 3.5 s, … 12.5 s after they opened, at whatever point of that cycle: in
    /// every one, the item's green outline is at the code's corners. (Before items the read outline went half a second after
    /// the last frame that read the code: every wiped stretch showed the code in magenta alone.)
    @Test func aCodeHeldInViewKeepsItsItemsOutlineThroughFramesThatMissIt() throws {
        var readable = GreyFrame(width: 640, height: 480, background: 200)
        let code = readable.draw(try ModuleMatrix.qrCode(Array(LiveViewDaemon.payload.utf8)), centerX: 240, centerY: 220, moduleSize: 6)
        let (wiped, blank) = (readable.withDataRowsWiped(of: code), GreyFrame(width: 640, height: 480, background: 200))
        let scenes = (0..<25).map { i in i >= 10 ? wiped : [4, 7].contains(i) ? blank : readable }
        // A live pipe's frame time is when frames arrive: a browser starting on a loaded machine can
        // stall the feeder past the default grace (0.6 s was seen with eleven at once), and a
        // starved machine stops the feeder and the daemon for seconds; so the grace is the hang
        // deadline (frames, not time, decide: the item ends with the stream), and every frame is
        // scanned (none dropped late). The wiped stretches are detected codes.
        let config = try TemporaryFile(contents: Array("duplicate_suppression:\n  item_grace_seconds: 300\n".utf8), suffix: ".yaml")
        let live = try LiveViewDaemon(["--no-discard-late", "--config", config.path], scenes: scenes, suppressingDuplicates: true)
        let directory = try ScreenshotDirectory()
        let page = try directory.heldOpenPage(live: "http://127.0.0.1:\(live.port)")
        let corners = code.corners.map { ($0.x, $0.y) }
        let timeouts = stride(from: 2500, through: 12_500, by: 1000).map { $0 }
        var samples: [Int: [String]] = [:]
        for timeout in timeouts {
            let png = directory.path("\(timeout).png")
            // LIVE_VIEW_SCREENSHOT=PREFIX keeps every screenshot checked, as PREFIX-items-MS-PAGE.png.
            samples[timeout] = try firstShown(page, ["--timeout=\(timeout)", "--screenshot=\(png)"], png: png, directory: directory, kept: { png, page in
                if let prefix = ProcessInfo.processInfo.environment["LIVE_VIEW_SCREENSHOT"] {
                    try? FileManager.default.copyItem(atPath: png, toPath: "\(prefix)-items-\(timeout)-\(page).png")
                }
            }) { $0.misses(.read, around: corners) }
        }
        for timeout in timeouts { #expect(samples[timeout] == [], "\(timeout) ms after the page opened: \(samples[timeout] ?? [])") }
        #expect(waitUntil { live.framesFed >= 100 }, "100 frames fed: \(live.framesFed)")
        #expect(live.finish() == 0, "\(live.daemon.stderr)")
        // One item all along, read in some of its frames only.
        let records = live.daemon.stdoutLines.compactMap { $0 }
        let lines = records.filter { $0["type"] as? String == "code" }
        #expect(lines.count == 1 && lines.first?["item"] as? Int == 1, "one code line, item 1: \(lines)")
        let removed = records.filter { $0["type"] as? String == "item_removed" }
        #expect(removed.count == 1, "\(removed)")
        let (present, read) = (removed.first?["frames_present"] as? Int ?? 0, removed.first?["frames_read"] as? Int ?? 0)
        #expect(present >= 100 && read < present * 2 / 3, "frames present \(present), read \(read)")
    }
}

/// A temporary directory for a browser test's pages and screenshots, removed with the value.
final class ScreenshotDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("syncscan-browser-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// A page (its `file://` URL) showing the live view at `live` in a frame filling the window,
    /// with a hidden frame on its `/events`, a stream that never ends. Chromium takes `--screenshot`
    /// at the page's load or at `--timeout`, whichever comes first, and the live picture's first
    /// part fires load at once: held open by the hidden frame, the page is screenshot at the timeout.
    func heldOpenPage(live: String) throws -> String {
        let html = "<!doctype html><html><body style=\"margin:0\">"
            + "<iframe src=\"\(live)/\" style=\"border:0;display:block;width:1200px;height:700px\"></iframe>"
            + "<iframe src=\"\(live)/events\" style=\"display:none\"></iframe></body></html>"
        try Array(html.utf8).withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: path("held-open.html"))) }
        return "file://" + path("held-open.html")
    }
}

/// A 1200x700 screenshot of the page, decoded through ffmpeg (RGB, 3 bytes each), read in frame
/// pixels: the picture sits at the page's 12-pixel padding, 640 pixels wide for a 640-wide frame,
/// so frame pixel (x, y) is at (12 + x, 12 + y).
struct Screenshot {
    /// The page's outline colours.
    enum Outline: String {
        /// A code read: green (`#0f0`).
        case read = "green"
        /// A code detected but not decoded: magenta (`#f0f`).
        case undecoded = "magenta"

        func matches(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Bool {
            switch self {
            case .read: r < 90 && g > 200 && b < 90
            case .undecoded: r > 200 && g < 90 && b > 200
            }
        }
    }

    static let (width, height) = (1200, 700)
    let rgb: [UInt8]

    init(png: String, directory: ScreenshotDirectory) throws {
        let raw = directory.path("screenshot.rgb")
        let decoded = try ChildProcess(["ffmpeg", "-v", "error", "-y", "-i", png, "-f", "rawvideo", "-pix_fmt", "rgb24", raw])
        #expect(decoded.wait(timeout: hangTimeout).map(ChildProcess.exitStatus) == 0)
        rgb = [UInt8](FileManager.default.contents(atPath: raw) ?? Data())
        try #require(rgb.count == Self.width * Self.height * 3, "\(png): \(rgb.count) bytes")
    }

    /// Whether `outline`'s colour is within `within` screen pixels of frame pixel `point`.
    func has(_ outline: Outline, nearFramePixel point: (Int, Int), within: Int = 6) -> Bool {
        let (x, y) = (12 + point.0, 12 + point.1)
        return (-within...within).contains { dy in
            (-within...within).contains { dx in
                guard (0..<Self.width).contains(x + dx), (0..<Self.height).contains(y + dy) else { return false }
                let i = ((y + dy) * Self.width + x + dx) * 3
                return outline.matches(rgb[i], rgb[i + 1], rgb[i + 2])
            }
        }
    }

    /// Whether either outline colour is anywhere on the picture (frame pixels 0..<640, 0..<480).
    func hasAnyOutline() -> Bool {
        (12..<492).contains { y in
            (12..<652).contains { x in
                let i = (y * Self.width + x) * 3
                return Outline.read.matches(rgb[i], rgb[i + 1], rgb[i + 2]) || Outline.undecoded.matches(rgb[i], rgb[i + 1], rgb[i + 2])
            }
        }
    }

    /// Whether the picture is shown at frame pixel `point`, where the scene is its light grey
    /// background (200, give or take the JPEG's error), not the page's black before a picture.
    func hasScene(at point: (Int, Int)) -> Bool {
        let i = ((12 + point.1) * Self.width + 12 + point.0) * 3
        return rgb[i..<(i + 3)].allSatisfy { (170...230).contains($0) }
    }

    /// What is missing: `outline`'s colour near each of `corners` (frame pixels).
    func misses(_ outline: Outline, around corners: [(Double, Double)]) -> [String] {
        corners.compactMap { corner in
            has(outline, nearFramePixel: (Int(corner.0.rounded()), Int(corner.1.rounded()))) ? nil
                : "no outline \(outline.rawValue) near the corner \(corner)"
        }
    }

    /// What is wrong: `outline`'s colour near any of `corners` (another code's).
    func strays(_ outline: Outline, around corners: [(Double, Double)]) -> [String] {
        corners.compactMap { corner in
            has(outline, nearFramePixel: (Int(corner.0.rounded()), Int(corner.1.rounded()))) ? "\(outline.rawValue) near the corner \(corner)" : nil
        }
    }
}
