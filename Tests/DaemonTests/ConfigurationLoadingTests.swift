import Capture
import Configuration
import ConfigurationKeys
import Daemon
import Decoders
import Foundation
import Logging
import Media
import TestSupport
import Testing
import V4L2

/// A YAML file in a fresh temporary directory, removed when the test's scope ends.
final class TemporaryConfigFile {
    let directory: URL
    let path: String

    init(_ text: String, name: String = "syncscan.yaml") throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("syncscan-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }
}

/// The package root, found from this file's path (Tests/DaemonTests/<file>).
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Loads and expects a `ConfigurationError`, returning its lines.
func expectConfigurationError(file: String?, environment: [String: String] = [:], overrides: [String: ConfigValue] = [:],
                              sourceLocation: SourceLocation = #_sourceLocation) async -> [String] {
    do {
        let configuration = try await SyncscanConfiguration.load(file: file, environment: environment, overrides: overrides)
        Issue.record("expected a configuration error, loaded \(configuration)", sourceLocation: sourceLocation)
        return []
    } catch let error as ConfigurationError {
        #expect(error.exitCode == 2, sourceLocation: sourceLocation)
        return error.problems.map(\.description)
    } catch {
        Issue.record("expected ConfigurationError, got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
        return []
    }
}

@Suite(.offThePool) struct ConfigurationDefaultsTests {
    @Test func noFileNoEnvironmentGivesTheDocumentedDefaults() async throws {
        let configuration = try await SyncscanConfiguration.load(file: nil, environment: [:], overrides: [:])
        #expect(configuration.source == "/dev/video0")
        #expect(configuration.device == V4L2CaptureSource.Configuration(width: nil, height: nil, framesPerSecond: nil, pixelFormat: nil,
                                                                         maximumWidth: 1280, maximumHeight: 720, bufferCount: 4))
        #expect(configuration.alwaysDiscardLateVideoFrames == nil)
        #expect(configuration.scanningThreads == min(8, ProcessInfo.processInfo.activeProcessorCount))
        #expect(configuration.engine == .zxing)
        #expect(configuration.scanner == ScannerSettings(symbologies: [.qrcode], settings: [:], testInverted: false, xDensity: 1, yDensity: 1))
        #expect(configuration.rectOfInterest == .full)
        #expect(configuration.duplicateSuppression == .init(mode: .items, windowSeconds: 1.0))
        #expect(configuration.duplicateSuppression.reporting == .items(ItemTracker.Settings(grace: MediaTime(seconds: 1))))
        #expect(configuration.statsIntervalSeconds == 60)
        #expect(configuration.logLevel == .info)
        #expect(configuration.output.queueLines == 1024)
        #expect(configuration == SyncscanConfiguration())
    }

    @Test func shippedExampleFileStatesExactlyTheDefaults() async throws {
        let path = packageRoot.appendingPathComponent("config/syncscan.yaml").path
        let configuration = try await SyncscanConfiguration.load(file: path, environment: [:], overrides: [:])
        #expect(configuration == SyncscanConfiguration())
    }

    @Test func shippedTemplateInstanceFileLoads() async throws {
        let path = packageRoot.appendingPathComponent("config/video0.yaml").path
        let result = await SyncscanConfiguration.checkConfig(path: path)
        let configuration = try result.get()
        #expect(configuration.source == "/dev/video0")
        #expect(configuration.scanner.symbologies == [.qrcode])
    }

    @Test func fileWithOnlyCommentsGivesDefaults() async throws {
        let file = try TemporaryConfigFile("# nothing set\n\n")
        #expect(try await SyncscanConfiguration.load(file: file.path, environment: [:]) == SyncscanConfiguration())
    }
}

@Suite(.offThePool) struct ConfigurationFileTests {
    @Test func everyKeyInTheFileReachesTheConfiguration() async throws {
        let file = try TemporaryConfigFile("""
        source: /dev/video2
        device:
          width: 640
          height: 480
          fps: 7.5
          fourcc: yuyv
          max_width: 1920
          max_height: 1080
          buffers: 6
          missing_timeout: 45
        always_discard_late_video_frames: false
        scanning_threads: 2
        symbologies:
          - qrcode
          - EAN13
          - code128
        zbar:
          test-inverted: true
          x-density: 2
          y-density: 0
          code128:
            min-length: 4
            max-length: 20
          ean13:
            enable: false
          pdf417:
            enable: true
        rect_of_interest: {x: 0.25, y: 0.1, width: 0.5, height: 0.8}
        duplicate_suppression:
          enabled: false
          window_seconds: 2.5
        stats_interval_seconds: 0
        log_level: Debug
        output:
          queue_lines: 16
        """)
        let c = try await SyncscanConfiguration.load(file: file.path, environment: [:])
        #expect(c.source == "/dev/video2")
        var device = V4L2CaptureSource.Configuration(width: 640, height: 480, framesPerSecond: 7.5, pixelFormat: .yuyv, maximumWidth: 1920, maximumHeight: 1080, bufferCount: 6)
        device.missingTimeout = .seconds(45)
        #expect(c.device == device)
        #expect(c.alwaysDiscardLateVideoFrames == false)
        #expect(c.videoDataOutput.alwaysDiscardsLateVideoFrames == false)
        #expect(c.scanningThreads == 2)
        #expect(c.scanner.symbologies == [.qrcode, .code128, .pdf417])
        #expect(c.scanner.settings == [.code128: .init(minLength: 4, maxLength: 20)])
        #expect(c.scanner.testInverted)
        #expect(c.scanner.xDensity == 2)
        #expect(c.scanner.yDensity == 0)
        #expect(c.rectOfInterest == NormalizedRect(x: 0.25, y: 0.1, width: 0.5, height: 0.8))
        #expect(c.metadataSettings == MetadataOutput.Settings(engine: .zxing, scanner: c.scanner, rectOfInterest: c.rectOfInterest))
        #expect(c.duplicateSuppression == .init(mode: .off, windowSeconds: 2.5))
        #expect(c.statsIntervalSeconds == 0)
        #expect(c.logLevel == .debug)
        #expect(c.output.queueLines == 16)
    }

    @Test func symbologiesAllEnablesEverySymbologyOfTheEngine() async throws {
        let file = try TemporaryConfigFile("symbologies: all\n")
        #expect(try await SyncscanConfiguration.load(file: file.path, environment: [:]).scanner.symbologies == ZXingDecoder().readable)
        let zbar = try TemporaryConfigFile("engine: zbar\nsymbologies: all\n")
        #expect(try await SyncscanConfiguration.load(file: zbar.path, environment: [:]).scanner.symbologies == ZBarDecoder().readable)
    }

    @Test func symbologiesScalarIsACommaSeparatedList() async throws {
        let file = try TemporaryConfigFile("symbologies: qrcode, code128\n")
        #expect(try await SyncscanConfiguration.load(file: file.path, environment: [:]).scanner.symbologies == [.qrcode, .code128])
        let bad = try TemporaryConfigFile("symbologies: qrcode, cod128\n")
        let lines = await expectConfigurationError(file: bad.path)
        #expect(lines.first?.hasPrefix("\(bad.path):1: symbologies[1]: unknown symbology \"cod128\"") == true, "\(lines)")
    }

    @Test func rectOfInterestWithoutSizeExtendsToTheEdges() async throws {
        let file = try TemporaryConfigFile("rect_of_interest:\n  x: 0.5\n  y: 0.25\n")
        let rect = try await SyncscanConfiguration.load(file: file.path, environment: [:]).rectOfInterest
        #expect(rect == NormalizedRect(x: 0.5, y: 0.25, width: 0.5, height: 0.75))
    }
}

@Suite(.offThePool) struct ConfigurationPrecedenceTests {
    @Test func flagBeatsEnvironmentBeatsFileBeatsDefault() async throws {
        let file = try TemporaryConfigFile("source: /dev/video1\nscanning_threads: 2\nlog_level: warning\n")
        let environment = ["SYNCSCAN_SOURCE": "/dev/video3", "SYNCSCAN_SCANNING_THREADS": "3", "PATH": "/usr/bin"]
        let overrides: [String: ConfigValue] = ["source": "/dev/video5"]

        let all = try await SyncscanConfiguration.load(file: file.path, environment: environment, overrides: overrides)
        #expect(all.source == "/dev/video5")
        #expect(all.scanningThreads == 3)
        #expect(all.logLevel == .warning)
        #expect(all.statsIntervalSeconds == 60)

        let noFlag = try await SyncscanConfiguration.load(file: file.path, environment: environment)
        #expect(noFlag.source == "/dev/video3")

        let fileOnly = try await SyncscanConfiguration.load(file: file.path, environment: [:])
        #expect(fileOnly.source == "/dev/video1")
        #expect(fileOnly.scanningThreads == 2)
    }

    @Test func environmentNamesFollowTheKeyPaths() async throws {
        let environment = [
            "SYNCSCAN_SYMBOLOGIES": "qrcode, ean13",
            "SYNCSCAN_DEVICE_MAX_WIDTH": "1920",
            "SYNCSCAN_ZBAR_TEST_INVERTED": "yes",
            "SYNCSCAN_ZBAR_CODE39_MIN_LENGTH": "3",
            "SYNCSCAN_ZBAR_DATABAR_EXP_ENABLE": "1",
            "SYNCSCAN_ALWAYS_DISCARD_LATE_VIDEO_FRAMES": "false",
            "SYNCSCAN_DUPLICATE_SUPPRESSION_WINDOW_SECONDS": "0.5",
            "SYNCSCAN_RECT_OF_INTEREST_X": "0.5",
            "SYNCSCAN_CONFIG": "/etc/syncscan/syncscan.yaml",
        ]
        let c = try await SyncscanConfiguration.load(file: nil, environment: environment)
        #expect(c.scanner.symbologies == [.qrcode, .ean13, .databarExp])
        #expect(c.device.maximumWidth == 1920)
        #expect(c.scanner.testInverted)
        #expect(c.scanner.settings[.code39] == .init(minLength: 3, maxLength: nil))
        #expect(c.alwaysDiscardLateVideoFrames == false)
        #expect(c.duplicateSuppression.windowSeconds == 0.5)
        #expect(c.duplicateSuppression.mode == .window, "a window set without a mode: the window, as before items")
        #expect(c.rectOfInterest == NormalizedRect(x: 0.5, y: 0, width: 0.5, height: 1))
    }

    @Test func environmentListOverridesFileList() async throws {
        let file = try TemporaryConfigFile("symbologies: [ean8, upca]\n")
        let c = try await SyncscanConfiguration.load(file: file.path, environment: ["SYNCSCAN_SYMBOLOGIES": "all"])
        #expect(c.scanner.symbologies == ZXingDecoder().readable)
    }

    @Test func everyKeyIsReadFromItsEnvironmentVariable() async throws {
        // Dashes and dots both become underscores; the variable reaches the key it names.
        let c = try await SyncscanConfiguration.load(file: nil, environment: [
            "SYNCSCAN_ZBAR_DATABAR_EXP_MAX_LENGTH": "9", "SYNCSCAN_OUTPUT_QUEUE_LINES": "7", "SYNCSCAN_DEVICE_BUFFERS": "8",
        ])
        #expect(c.scanner.settings[.databarExp] == .init(minLength: nil, maxLength: 9))
        #expect(c.output.queueLines == 7)
        #expect(c.device.bufferCount == 8)
    }
}

@Suite(.offThePool) struct ConfigurationErrorTests {
    @Test func unknownKeyNamesFileLineAndSuggestion() async throws {
        let file = try TemporaryConfigFile("source: /dev/video0\ndevice:\n  widht: 640\n")
        let lines = await expectConfigurationError(file: file.path)
        #expect(lines == ["\(file.path):3: device.widht: unknown key \"widht\" (did you mean \"width\"?) (known: width, height, fps, min_fps, fourcc, max_width, max_height, buffers, missing_timeout)"])
    }

    @Test func unknownSymbologyNamesItsIndexAndLine() async throws {
        let file = try TemporaryConfigFile("log_level: info\nsymbologies:\n  - qrcode\n  - qr\n")
        let lines = await expectConfigurationError(file: file.path)
        let known = Symbology.allCases.map(\.rawValue).joined(separator: ", ")
        #expect(lines == ["\(file.path):4: symbologies[1]: unknown symbology \"qr\" (known: \(known))"])
    }

    @Test func wrongTypesAreEachReportedWithTheirLines() async throws {
        let file = try TemporaryConfigFile("""
        scanning_threads: many
        device:
          fps: fast
          buffers: "4"
        duplicate_suppression:
          enabled: maybe
        rect_of_interest: [0, 0, 1, 1]
        """)
        let lines = await expectConfigurationError(file: file.path)
        #expect(lines == [
            "\(file.path):1: scanning_threads: expected auto or an integer from 1 to 64, found \"many\"",
            "\(file.path):3: device.fps: expected a number, found \"fast\"",
            "\(file.path):4: device.buffers: expected an integer, found \"4\" (remove the quotes)",
            "\(file.path):6: duplicate_suppression.enabled: expected true or false, found \"maybe\"",
            "\(file.path):7: rect_of_interest: expected a mapping with keys x, y, width, height, found a list",
        ])
    }

    @Test func outOfRangeValuesNameKeyAndLine() async throws {
        let file = try TemporaryConfigFile("""
        scanning_threads: 0
        device:
          buffers: 64
          width: 640
        rect_of_interest:
          x: 0.5
          width: 0.6
        log_level: loud
        """)
        let lines = await expectConfigurationError(file: file.path)
        #expect(lines == [
            "\(file.path):1: scanning_threads: expected auto or an integer from 1 to 64, found \"0\"",
            "\(file.path):3: device.buffers: 64 is out of range: must be from 2 to 32 (streaming needs 2; V4L2 allows at most 32)",
            "\(file.path):4: device.width: device.width and device.height must be given together",
            "\(file.path):7: rect_of_interest.width: x + width = 1.1 goes past the right edge (must be at most 1)",
            "\(file.path):8: log_level: unknown log level \"loud\" (known: trace, debug, info, notice, warning, error, critical)",
        ])
    }

    @Test func theFrameRateFloorAndMJPEGAreReadAndAnOutOfRangeFloorIsNamed() async throws {
        let file = try TemporaryConfigFile("device:\n  fourcc: mjpg\n  min_fps: 0\n")
        let c = try await SyncscanConfiguration.load(file: file.path, environment: [:])
        #expect(c.device.pixelFormat == .mjpeg && c.device.minimumFramesPerSecond == 0)
        #expect(SyncscanConfiguration().device.minimumFramesPerSecond == 10)
        let bad = try TemporaryConfigFile("device:\n  min_fps: -1\n")
        let lines = await expectConfigurationError(file: bad.path)
        #expect(lines == ["\(bad.path):2: device.min_fps: -1 is out of range: must be at least 0 and at most 1000"
                          + " (the floor under which a smaller, faster size is chosen; 0: none)"], "\(lines)")
    }

    @Test func emptyRectOfInterestIsRejected() async throws {
        let file = try TemporaryConfigFile("rect_of_interest:\n  x: 0.2\n  width: 0\n")
        let lines = await expectConfigurationError(file: file.path)
        #expect(lines == ["\(file.path):3: rect_of_interest.width: 0 is out of range: must be greater than 0 and at most 1"])
    }

    @Test func nullValueAsksForAValueOrRemoval() async throws {
        let file = try TemporaryConfigFile("device:\n  width:\n")
        let lines = await expectConfigurationError(file: file.path)
        #expect(lines == ["\(file.path):2: device.width: has no value; give an integer or remove the key to use the default"])
    }

    @Test func yamlSyntaxErrorNamesItsLine() async throws {
        let file = try TemporaryConfigFile("source: /dev/video0\ndevice:\n  width: [640\n")
        let lines = await expectConfigurationError(file: file.path)
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("\(file.path):4: invalid YAML: ") == true, "\(lines)")
    }

    @Test func keyGivenTwiceIsAnError() async throws {
        let file = try TemporaryConfigFile("source: /dev/video0\nsource: /dev/video1\n")
        let lines = await expectConfigurationError(file: file.path)
        #expect(lines == ["\(file.path):1: key given twice in one mapping: source"])
    }

    @Test func missingFileSaysWhy() async throws {
        let lines = await expectConfigurationError(file: "/nonexistent/syncscan.yaml")
        #expect(lines == ["/nonexistent/syncscan.yaml: cannot read the configuration file: No such file or directory"])
    }

    @Test func disablingEverySymbologyIsAnError() async throws {
        let file = try TemporaryConfigFile("symbologies: [qrcode]\nzbar:\n  qrcode:\n    enable: false\n")
        let lines = await expectConfigurationError(file: file.path)
        #expect(lines == ["\(file.path):1: symbologies: no symbology is left enabled (zbar.<name>.enable: false removed them all)"])
    }

    @Test func aSymbologyTheEngineCannotReadNamesTheEngineThatCan() async throws {
        let file = try TemporaryConfigFile("engine: zbar\nsymbologies: [qrcode, aztec]\n")
        let lines = await expectConfigurationError(file: file.path)
        #expect(lines == ["\(file.path):2: symbologies: the zbar engine does not read aztec; engine: zxing or engine: hybrid does, or remove aztec"])
        let zxing = try TemporaryConfigFile("engine: zxing\nsymbologies: all\n")
        #expect(try await SyncscanConfiguration.load(file: zxing.path, environment: [:]).scanner.symbologies == ZXingDecoder().readable)
        let unknown = try TemporaryConfigFile("engine: zxingcpp\n")
        #expect(await expectConfigurationError(file: unknown.path) == ["\(unknown.path):1: engine: unknown engine \"zxingcpp\" (known: zbar, zxing, hybrid)"])
    }

    @Test func effortIsReadFromTheFileTheEnvironmentAndTheFlagAndAnUnknownOneNamesItsLine() async throws {
        #expect(try await SyncscanConfiguration.load(file: nil, environment: [:]).effort == .auto)
        let file = try TemporaryConfigFile("engine: hybrid\neffort: max\n")
        let loaded = try await SyncscanConfiguration.load(file: file.path, environment: [:])
        #expect(loaded.effort == .max && loaded.metadataSettings.effort == .max)
        #expect(try await SyncscanConfiguration.load(file: file.path, environment: ["SYNCSCAN_EFFORT": "fast"]).effort == .fast)
        #expect(try await SyncscanConfiguration.load(file: file.path, environment: ["SYNCSCAN_EFFORT": "fast"],
                                                     overrides: ["effort": "auto"]).effort == .auto)
        let unknown = try TemporaryConfigFile("engine: zxing\neffort: hard\n")
        #expect(await expectConfigurationError(file: unknown.path)
                == ["\(unknown.path):2: effort: unknown effort \"hard\" (known: fast, auto, max)"])
    }

    @Test func passesKeepTheEngineOnesNamedAndRefuseOthersByLine() async throws {
        #expect(try await SyncscanConfiguration.load(file: nil, environment: [:]).passes == nil)
        let file = try TemporaryConfigFile("engine: zxing\npasses: [zxing-full, zxing-histogram]\n")
        let loaded = try await SyncscanConfiguration.load(file: file.path, environment: [:])
        #expect(loaded.metadataSettings.passes == [.zxingFull, .zxingHistogram])
        #expect(try await SyncscanConfiguration.load(file: nil, environment: ["SYNCSCAN_ENGINE": "hybrid", "SYNCSCAN_PASSES": "zbar"])
                    .metadataSettings.passes == [.zbar])
        let wrong = try TemporaryConfigFile("engine: zbar\npasses:\n  - zbar\n  - zxing-full\n  - hard\n")
        #expect(await expectConfigurationError(file: wrong.path) == [
            "\(wrong.path):4: passes[1]: the zbar engine has no zxing-full pass for these symbologies; its passes: zbar",
            "\(wrong.path):5: passes[2]: unknown pass \"hard\" (known: zxing-fast, zbar, zxing-full, zbar-upscale, zxing-histogram, zxing-upscale)",
        ])
    }

    @Test func minLengthAboveMaxLengthIsAnError() async throws {
        let file = try TemporaryConfigFile("zbar:\n  code39:\n    min-length: 9\n    max-length: 3\n")
        let lines = await expectConfigurationError(file: file.path)
        #expect(lines == ["\(file.path):3: zbar.code39.min-length: 9 is greater than zbar.code39.max-length 3"])
    }

    @Test func environmentErrorsNameTheVariable() async throws {
        let lines = await expectConfigurationError(file: nil, environment: [
            "SYNCSCAN_SCANNING_THREADS": "two",
            "SYNCSCAN_SYMBOLOGIES": "qrcode,qr",
        ])
        let known = Symbology.allCases.map(\.rawValue).joined(separator: ", ")
        // Both problems in one run: the type error and the bad symbology.
        #expect(lines == ["environment SYNCSCAN_SCANNING_THREADS: scanning_threads: expected auto or an integer from 1 to 64, found \"two\"",
                          "environment SYNCSCAN_SYMBOLOGIES: symbologies[1]: unknown symbology \"qr\" (known: \(known))"])
        let rangeLines = await expectConfigurationError(file: nil, environment: ["SYNCSCAN_SYMBOLOGIES": "qrcode,qr"])
        #expect(rangeLines == ["environment SYNCSCAN_SYMBOLOGIES: symbologies[1]: unknown symbology \"qr\" (known: \(known))"])
    }

    @Test func unknownEnvironmentVariableSuggestsTheKnownOne() async throws {
        let lines = await expectConfigurationError(file: nil, environment: ["SYNCSCAN_SOURCES": "/dev/video0"])
        #expect(lines == ["environment SYNCSCAN_SOURCES: unknown syncscan environment variable (did you mean SYNCSCAN_SOURCE?); see config/syncscan.yaml for the keys"])
    }

    @Test func overrideErrorsNameTheCommandLine() async throws {
        let lines = await expectConfigurationError(file: nil, overrides: ["output.queue_lines": 0, "sauce": "x"])
        // Both problems in one run: the out-of-range value and the unknown key.
        #expect(lines == ["command line (output.queue_lines): output.queue_lines: 0 is out of range: must be from 1 to 1048576",
                          "command line (sauce): sauce: unknown configuration key"])
        let rangeLines = await expectConfigurationError(file: nil, overrides: ["scanning_threads": "0"])
        #expect(rangeLines == ["command line (scanning_threads): scanning_threads: expected auto or an integer from 1 to 64, found \"0\""])
    }

    @Test func checkConfigReturnsTheProblemsWithExitCodeTwo() async throws {
        let file = try TemporaryConfigFile("output:\n  queue_lines: 0\n")
        let result = await SyncscanConfiguration.checkConfig(path: file.path)
        guard case .failure(let error) = result else {
            Issue.record("expected a failure, got \(result)")
            return
        }
        #expect(error.exitCode == 2)
        #expect(ConfigurationError.exitCode == 2)
        #expect(error.description == "\(file.path):2: output.queue_lines: 0 is out of range: must be from 1 to 1048576")
    }
}
