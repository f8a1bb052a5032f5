// swift-tools-version: 6.2
import PackageDescription

// libFuzzer targets, kept out of the root package so its `swift build` is untouched.
// Build with scripts/fuzz.sh (debug by default, -sanitize=fuzzer,address; own .build under Fuzz/).
let fuzzFlags: [SwiftSetting] = [.unsafeFlags(["-parse-as-library"])]

let package = Package(
    name: "syncscan-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "syncscan", path: "..")],
    targets: [
        // libFuzzer's driver, started from the debug build's renamed entry point.
        .target(name: "FuzzDriver"),
        .executableTarget(name: "FuzzY4M", dependencies: [
            .product(name: "SyncscanFuzzTargets", package: "syncscan"), "FuzzDriver",
        ], swiftSettings: fuzzFlags),
        .executableTarget(name: "FuzzJSONLine", dependencies: [
            .product(name: "SyncscanFuzzTargets", package: "syncscan"), "FuzzDriver",
        ], swiftSettings: fuzzFlags),
        .executableTarget(name: "FuzzConfiguration", dependencies: [
            .product(name: "SyncscanFuzzTargets", package: "syncscan"), "FuzzDriver",
        ], swiftSettings: fuzzFlags),
        .executableTarget(name: "FuzzDecoders", dependencies: [
            .product(name: "SyncscanFuzzTargets", package: "syncscan"), "FuzzDriver",
        ], swiftSettings: fuzzFlags),
        .executableTarget(name: "FuzzGS1", dependencies: [
            .product(name: "SyncscanFuzzTargets", package: "syncscan"), "FuzzDriver",
        ], swiftSettings: fuzzFlags),
        .executableTarget(name: "FuzzRedaction", dependencies: [
            .product(name: "SyncscanFuzzTargets", package: "syncscan"), "FuzzDriver",
        ], swiftSettings: fuzzFlags),
        .executableTarget(name: "FuzzLogText", dependencies: [
            .product(name: "SyncscanFuzzTargets", package: "syncscan"), "FuzzDriver",
        ], swiftSettings: fuzzFlags),
    ]
)
