import Foundation
import TestSupport
import Testing

/// `syncscan check-config` on a GStreamer source, with GStreamer limited to the plugins in a
/// directory of the test's (GST_PLUGIN_SYSTEM_PATH_1_0, a registry of its own): a URI no
/// installed plugin reads is refused, naming the Debian package, without the password.
@Suite(.offThePool) struct GStreamerCheckConfigTests {
    /// Where Debian installs GStreamer's plugins (`pkg-config --variable=pluginsdir gstreamer-1.0`).
    static func systemPluginDirectory() throws -> String {
        let result = try ExternalTool.run("pkg-config", ["--variable=pluginsdir", "gstreamer-1.0"])
        guard result.status == 0 else { throw FixtureError.toolFailed(result.describe()) }
        return String(decoding: result.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs `check-config` on `source` with only `plugins` (file names under `system`) installed.
    func checkConfig(source: String, plugins: [String]) throws -> SyncscanProcess.Output {
        let system = try Self.systemPluginDirectory()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("syncscan-gst-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for plugin in plugins {
            try FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent(plugin).path, withDestinationPath: "\(system)/\(plugin)")
        }
        let config = directory.appendingPathComponent("c.yaml").path
        try "source: \"\(source)\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        return try SyncscanProcess.run(["check-config", config], environment: [
            "GST_PLUGIN_SYSTEM_PATH_1_0": directory.path, "GST_PLUGIN_PATH_1_0": directory.path,
            "GST_REGISTRY_1_0": directory.appendingPathComponent("registry.bin").path,
        ])
    }

    @Test func aURIWithoutItsPluginIsRefusedNamingThePackage() throws {
        let base = ["libgstapp.so", "libgstcoreelements.so", "libgstplayback.so", "libgstvideoconvertscale.so", "libgsttypefindfunctions.so"]
        try #require(FileManager.default.fileExists(atPath: "\(try Self.systemPluginDirectory())/libgstrtsp.so"),
                     "gstreamer1.0-plugins-good is installed (scripts/setup.sh)")
        let refused = try checkConfig(source: "rtsp://viewer:hunter2@cam/live", plugins: base)
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("unsupported source \"rtsp://viewer:***@cam/live\": no installed GStreamer plugin has rtspsrc; install gstreamer1.0-plugins-good"),
                "\(refused.stderr)")
        #expect(!refused.stderr.contains("hunter2") && !String(decoding: refused.stdout, as: UTF8.self).contains("hunter2"))

        let accepted = try checkConfig(source: "rtsp://viewer:hunter2@cam/live", plugins: base + ["libgstrtsp.so"])
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(String(decoding: accepted.stdout, as: UTF8.self).contains("OK (source rtsp://viewer:***@cam/live, live,"))
    }

    /// GStreamer is initialized (its plugin registry read or written) only for a GStreamer
    /// source: a Y4M run and `--version` leave the registry file GST_REGISTRY_1_0 names unmade,
    /// a GStreamer source's `check-config` makes it.
    @Test func onlyAGStreamerSourceInitializesGStreamer() throws {
        let directory = try TemporaryDirectory()
        let registry = directory.path + "/registry.bin"
        let environment = ["GST_REGISTRY_1_0": registry]
        let video = try TemporaryFile(contents: Y4MWriter.bytes([GreyFrame(width: 64, height: 48)]), suffix: ".y4m")
        let run = try SyncscanProcess.run(["run", "--source", video.path], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        let version = try SyncscanProcess.run(["--version"], environment: environment)
        #expect(String(decoding: version.stdout, as: UTF8.self).contains("GStreamer 1."), "the version still named")
        #expect(!FileManager.default.fileExists(atPath: registry), "no registry: GStreamer was not initialized")

        let config = directory.path + "/c.yaml"
        try "source: \"rtsp://cam/live\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let checked = try SyncscanProcess.run(["check-config", config], environment: environment)
        #expect(checked.status == 0, "\(checked.stderr)")
        #expect(FileManager.default.fileExists(atPath: registry), "a GStreamer source initializes it, and writes the registry there")
    }
}
