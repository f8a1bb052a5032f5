// swift-tools-version: 6.2
import PackageDescription

// The folder layout follows one frame through the pipeline:
// CV4L2/CGStreamer/CZBar/CZXing/CTurboJPEG (C) → V4L2 (camera) / Y4M (file, pipe) / GStreamer (network, video files) → Capture/Outputs
// (video; metadata through the DecoderLibrary protocol, which Decoders implements with ZBar and ZXing)
// → Capture/Synchronizer → Results (JSON lines) and LiveView (previews over HTTP) ; Daemon wires it as a service ; syncscan is `main`.
// ConfigurationKeys: each component's settings read their own keys through it; Daemon composes them.
let package = Package(
    name: "syncscan",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "syncscan", targets: ["syncscan"]),
        // For the libFuzzer package in Fuzz/ (depends on this one by path); nothing else uses it.
        .library(name: "SyncscanFuzzTargets", targets: ["Y4M", "GS1", "Results", "Capture", "ConfigurationKeys", "Daemon", "Media", "ZBar", "ZXing", "Decoders", "SystemCalls"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: ["YAML"]),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        // C: system libraries plus header-only shims for what Swift cannot import.
        .systemLibrary(name: "CZBar", pkgConfig: "zbar", providers: [.apt(["libzbar-dev"])]),
        .systemLibrary(name: "CV4L2", pkgConfig: "libv4l2", providers: [.apt(["libv4l-dev"])]),
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        // GStreamer 1.22 (core, app, video): pkg-config's video module brings the core's and GLib's include paths.
        .systemLibrary(name: "CGStreamer", pkgConfig: "gstreamer-video-1.0",
                       providers: [.apt(["libgstreamer1.0-dev", "libgstreamer-plugins-base1.0-dev"])]),
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CEvdev", pkgConfig: "libevdev", providers: [.apt(["libevdev-dev"])]),
        // libmodbus 3.1.6: the Modbus TCP server's replies (request → response over a register map).
        .systemLibrary(name: "CModbus", pkgConfig: "libmodbus", providers: [.apt(["libmodbus-dev"])]),
        // zxing-cpp 3.1.1 through its own C API (ZXing/ZXingC.h), a static library that
        // scripts/setup.sh builds into /usr/local (Debian 12's libzxing-dev is 1.4, without it).
        .systemLibrary(name: "CZXing", pkgConfig: "zxing"),
        // libmicrohttpd: its variadic calls behind fixed-argument C functions (apt: libmicrohttpd-dev).
        .target(name: "CMicroHTTPD", linkerSettings: [.linkedLibrary("microhttpd")]),

        // Frames, pixel formats, source URIs and the frame-source protocol shared by every stage (no C).
        .target(name: "Media"),
        // GS1 element strings and Digital Link URIs parsed and checked against GS1's AI table (pure Swift,
        // no C): what a code line's `gs1` and `gs1_error` come from (Results encodes them).
        .target(name: "GS1"),

        // The one EINTR-retrying helper every module's `system_*` wrappers go through, `poll(2)`,
        // `sched_getaffinity` (through the CSystemCalls shim), `IOError`, the one error shape
        // of the inputs (V4L2, Y4M) and the output, and `LockedValue`, the one lock (a pthread mutex).
        .target(name: "CSystemCalls"),
        // The executable's first code (an ELF .preinit_array entry): SIGTERM, SIGINT, SIGHUP and
        // SIGUSR1 trapped and counted before main (SystemCalls' ProcessSignals reads the counts).
        .target(name: "CEarlySignals", dependencies: ["CSystemCalls"]),
        .target(name: "SystemCalls", dependencies: [
            "CSystemCalls",
            .product(name: "SystemPackage", package: "swift-system"),
        ]),

        // The configuration keys a component reads its settings from, under its prefix (`ConfigurationKeyReader`,
        // `ConfigurationSection`), over swift-configuration; each problem with its key and file line (`ConfigurationError`).
        .target(name: "ConfigurationKeys", dependencies: [
            "Media", "SystemCalls",
            .product(name: "Configuration", package: "swift-configuration"),
            .product(name: "SystemPackage", package: "swift-system"),
            .product(name: "Yams", package: "Yams"),
        ]),

        // Wrappers: the only modules that import C.
        .target(name: "ZBar", dependencies: [
            "CZBar", "Media",
        ]),
        .target(name: "ZXing", dependencies: [
            "CZXing", "Media",
        ]),
        // Frames' pixels to JPEG through TurboJPEG: grey and YUV planes, no RGB conversion; and
        // camera JPEGs (MJPEG) to grey, for the V4L2 source through Media's CompressedFrameDecoder.
        .target(name: "JPEG", dependencies: [
            "CTurboJPEG", "Media", "SystemCalls",
        ], plugins: ["PkgConfigVersion"]),

        // An MQTT broker connection through libmosquitto (one client, driven by its owner's thread).
        .target(name: "MQTT", dependencies: [
            "CMosquitto", "Media", "SystemCalls", .product(name: "SystemPackage", package: "swift-system"),
        ]),

        // Input devices through libevdev: a virtual keyboard made through uinput (the keyboard wedge)
        // and an evdev node's key events read (the key trigger); each owner frees its handles.
        .target(name: "Evdev", dependencies: [
            "CEvdev", "SystemCalls", .product(name: "SystemPackage", package: "swift-system"),
        ]),

        // Modbus replies through libmodbus: one context and its register map, owned by one type
        // (the Modbus TCP server's thread drives it; the sockets are SystemCalls').
        .target(name: "Modbus", dependencies: [
            "CModbus", "SystemCalls", .product(name: "SystemPackage", package: "swift-system"),
        ]),

        // HTTP(S) POSTs through libcurl (one easy handle, driven by its owner's thread): the webhook's client.
        .target(name: "HTTPClient", dependencies: ["CCurl"]),

        // An HTTP server through libmicrohttpd (its threads, a thread per connection).
        .target(name: "HTTP", dependencies: [
            "CMicroHTTPD", "SystemCalls", .product(name: "SystemPackage", package: "swift-system"),
            .product(name: "Logging", package: "swift-log"),
        ]),

        // The inputs, peers behind Media's `FrameSource`: a camera through libv4l2, and a
        // YUV4MPEG2 file or pipe read through swift-system (no C, no Glibc).
        .target(name: "V4L2", dependencies: [
            "CV4L2", "ConfigurationKeys", "Media", "SystemCalls",
            .product(name: "SystemPackage", package: "swift-system"),
            .product(name: "Logging", package: "swift-log"),
        ], plugins: ["PkgConfigVersion"]),
        .target(name: "Y4M", dependencies: [
            "Media", "SystemCalls",
            .product(name: "SystemPackage", package: "swift-system"),
            .product(name: "Logging", package: "swift-log"),
        ]),

        // Network streams (RTSP, HTTP), video files and gst: pipelines through GStreamer's appsink.
        .target(name: "GStreamer", dependencies: [
            "CGStreamer", "ConfigurationKeys", "Media", "SystemCalls",
            .product(name: "SystemPackage", package: "swift-system"),
            .product(name: "Logging", package: "swift-log"),
        ]),

        // The AVFoundation-shaped pipeline: session, outputs, synchronizer (any FrameSource in).
        .target(name: "Capture", dependencies: [
            "Media", "SystemCalls",
            .product(name: "Logging", package: "swift-log"),
        ]),

        // The decoder libraries behind Capture's `DecoderLibrary` protocol: zbar's and zxing-cpp's
        // adapters (each over its wrapper module) and the engines made of their passes (zbar, zxing, hybrid).
        .target(name: "Decoders", dependencies: ["Capture", "ConfigurationKeys", "Media", "ZBar", "ZXing"]),

        // The durable outbox MQTT and the webhook deliver through: a memory queue, then a spool file,
        // retried with a backoff, every code counted (no receiver's protocol: neither imports the other).
        .target(name: "Outbox", dependencies: [
            "SystemCalls",
            .product(name: "SystemPackage", package: "swift-system"),
            .product(name: "Logging", package: "swift-log"),
        ]),

        // Results handlers: where matched code + frame pairs go (JSON lines on stdout, JPEG snapshots).
        .target(name: "Results", dependencies: [
            "Capture", "ConfigurationKeys", "GS1", "Media", "SystemCalls", "JPEG", "MQTT", "HTTPClient", "Outbox", "Evdev", "HTTP", "Modbus",
            .product(name: "SystemPackage", package: "swift-system"),
            .product(name: "Logging", package: "swift-log"),
        ]),

        // The live view: its results handler (code lines, outlines, preview pictures for viewers),
        // its HTTP service on HTTP's server (page, status, events) and its settings (`http.*`); it
        // reads the scan through its `ScanReporting` protocol, which Daemon's `ScanService` conforms to.
        .target(name: "LiveView", dependencies: [
            "Capture", "ConfigurationKeys", "HTTP", "JPEG", "Media", "Results", "SystemCalls",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "SystemPackage", package: "swift-system"),
        ]),

        // The service: configuration, systemd notify, signals, stats.
        .target(name: "Daemon", dependencies: [
            "Capture", "ConfigurationKeys", "Decoders", "GS1", "Results", "LiveView", "V4L2", "Y4M", "GStreamer", "Media", "SystemCalls", "MQTT", "JPEG", "HTTPClient", "Evdev", "Modbus",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "SystemPackage", package: "swift-system"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            .product(name: "Configuration", package: "swift-configuration"),
            .product(name: "Prometheus", package: "swift-prometheus"),
        ]),

        // libv4l2 and TurboJPEG have no version call: their wrappers get pkg-config's version at build time.
        .plugin(name: "PkgConfigVersion", capability: .buildTool()),

        .executableTarget(name: "syncscan", dependencies: [
            "CEarlySignals", "ConfigurationKeys", "Daemon", "Media", "Results", "SystemCalls", "V4L2", "JPEG",
            .product(name: "Configuration", package: "swift-configuration"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),

        // What the bench executables share (failing with a message, reading a file whole).
        .target(name: "BenchSupport", path: "bench/BenchSupport"),
        // bench/mjpeg.py's measure of syncscan's MJPEG→grey stage (JPEGLumaDecoder), against libv4l2's conversion.
        .executableTarget(name: "mjpeg-bench", dependencies: ["BenchSupport", "JPEG", "Media"], path: "bench/MJPEGBench"),
        // bench/pipeline.py's whole pipeline on MJPEG frames at a camera's pace (session, outputs, synchronizer, decoder).
        .executableTarget(name: "pipeline-bench", dependencies: [
            "BenchSupport", "Capture", "Decoders", "JPEG", "Media", .product(name: "Logging", package: "swift-log"),
        ], path: "bench/PipelineBench"),

        // Test support: fakes and fixture frames (real QR codes from qrencode).
        .target(name: "TestSupport", dependencies: [
            "ConfigurationKeys", "Media", "V4L2", "Capture", "Results", "SystemCalls", "JPEG", .product(name: "SystemPackage", package: "swift-system"),
            .product(name: "Logging", package: "swift-log"),
        ], path: "Tests/Support", exclude: ["Scripts"]),

        .testTarget(name: "SystemCallsTests", dependencies: ["SystemCalls", "TestSupport"]),
        .testTarget(name: "MediaTests", dependencies: ["Media", "TestSupport"]),
        .testTarget(name: "GS1Tests", dependencies: ["GS1", "ZXing"]),
        .testTarget(name: "ConfigurationKeysTests", dependencies: ["ConfigurationKeys", "TestSupport"]),
        .testTarget(name: "ZBarTests", dependencies: ["ZBar", "TestSupport"]),
        .testTarget(name: "ZXingTests", dependencies: ["ZXing", "TestSupport", "Media"]),
        // CTurboJPEG directly too: the reference the decoder's grey is compared with is TurboJPEG's own call.
        .testTarget(name: "JPEGTests", dependencies: ["JPEG", "CTurboJPEG", "TestSupport", "Media", "SystemCalls"]),
        .testTarget(name: "MQTTTests", dependencies: [
            "MQTT", "TestSupport", .product(name: "SystemPackage", package: "swift-system"),
        ]),
        .testTarget(name: "ModbusTests", dependencies: ["Modbus"]),
        .testTarget(name: "EvdevTests", dependencies: ["Evdev", "SystemCalls"]),
        .testTarget(name: "HTTPClientTests", dependencies: ["HTTPClient", "TestSupport"]),
        .testTarget(name: "HTTPTests", dependencies: [
            "HTTP", "SystemCalls", "TestSupport", .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "V4L2Tests", dependencies: ["V4L2", "SystemCalls", "TestSupport", "Capture", "Decoders", "JPEG"]),
        .testTarget(name: "GStreamerTests", dependencies: ["GStreamer", "Media", "SystemCalls", "TestSupport", "ZBar"]),
        .testTarget(name: "Y4MTests", dependencies: ["Y4M", "Capture", "Decoders", "SystemCalls", "TestSupport"]),
        .testTarget(name: "CaptureTests", dependencies: ["Capture", "Decoders", "JPEG", "SystemCalls", "TestSupport"]),
        .testTarget(name: "DecodersTests", dependencies: ["Decoders", "Capture", "Media", "SystemCalls", "TestSupport"]),
        .testTarget(name: "OutboxTests", dependencies: [
            "Outbox", "SystemCalls", "TestSupport", .product(name: "SystemPackage", package: "swift-system"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "ResultsTests", dependencies: [
            "Results", "Capture", "Decoders", "Media", "Outbox", "SystemCalls", "TestSupport", "JPEG", .product(name: "SystemPackage", package: "swift-system"),
        ]),
        .testTarget(name: "LiveViewTests", dependencies: [
            "LiveView", "Capture", "Decoders", "JPEG", "Media", "Results", "SystemCalls", "TestSupport",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "DaemonTests", dependencies: [
            "ConfigurationKeys", "Daemon", "Decoders", "Results", "MQTT", "SystemCalls", "TestSupport", .product(name: "Configuration", package: "swift-configuration"),
            .product(name: "Logging", package: "swift-log"), .product(name: "SystemPackage", package: "swift-system"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        .testTarget(name: "syncscanTests", dependencies: ["syncscan", "Daemon", "SystemCalls", "TestSupport"]),
    ]
)
