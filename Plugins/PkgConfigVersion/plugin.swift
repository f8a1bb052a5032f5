import Foundation
import PackagePlugin

/// Writes the version pkg-config gives at build time for the C library a wrapper target links, for
/// a library with no version call of its own: `PkgConfigVersion.swift` in the target, holding
/// `let pkgConfigVersion = "…"` (`"unknown"` when pkg-config does not know the module).
@main
struct PkgConfigVersion: BuildToolPlugin {
    /// The pkg-config module of each target the plugin is applied to.
    static let modules = ["V4L2": "libv4l2", "JPEG": "libturbojpeg"]

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let module = Self.modules[target.name] else {
            throw PluginError.noModule(target: target.name)
        }
        let output = context.pluginWorkDirectoryURL.appending(path: "PkgConfigVersion.swift")
        let script = """
            version=$(pkg-config --modversion "$1" 2>/dev/null) || version=unknown
            printf '/// `pkg-config --modversion %s` when this module was built.\\nlet pkgConfigVersion = "%s"\\n' "$1" "$version" > "$2"
            """
        return [.buildCommand(displayName: "pkg-config --modversion \(module) for \(target.name)",
                              executable: URL(filePath: "/bin/sh"), arguments: ["-c", script, "sh", module, output.path],
                              outputFiles: [output])]
    }

    enum PluginError: Error, CustomStringConvertible {
        case noModule(target: String)
        var description: String {
            switch self {
            case .noModule(let target): "PkgConfigVersion: no pkg-config module is named for target \(target); add it to PkgConfigVersion.modules"
            }
        }
    }
}
