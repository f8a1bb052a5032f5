#if canImport(Glibc)
import Glibc
#endif
import JPEG
import Logging
import Media
import SystemCalls
import SystemPackage
import V4L2

extension InputFamily {
    /// A V4L2 camera (`/dev/videoN`, `v4l2:/dev/videoN`, `/dev/v4l/by-id/…`): live; MJPEG decoded
    /// to grey by TurboJPEG (`JPEGLumaDecoder`), so a camera's fast MJPEG modes are candidates;
    /// `device.controls` applied in place on a reload.
    static let v4l2 = InputFamily(
        name: "v4l2", schemes: ["v4l2"], forms: V4L2CaptureSource.uriForms,
        parse: { text throws(SourceURIError) in try V4L2CaptureSource.parseURI(text) },
        open: { uri, options, logger in
            let camera = try V4L2CaptureSource(path: uri.location, configuration: options.configuration.device,
                                               frameDecoder: JPEGLumaDecoder(), logger: logger)
            return (camera, { new in
                // Against the settings in force, not the first ones: a reload back to them applies too.
                if new.configuration.device.controls != camera.controlSettings {
                    camera.setControls(new.configuration.device.controls)
                }
            })
        },
        checkOpenable: { uri, _ in
            // Not opened: the running session may hold it.
            if access(uri.location, R_OK | W_OK) != 0 {
                let errno = Errno(rawValue: Glibc.errno)
                throw IOError(call: "access", message: "\(uri.location): cannot open the camera; plug it in or name another device", errno: errno)
            }
        },
        isLive: { _ in true },
        versionLine: { "libv4l2 \(V4L2Library.version) (\(V4L2Library.versionOrigin))" },
        settings: [SettingsSection(.device, prefix: "device", reload: .restartsSession, read: V4L2CaptureSource.Configuration.init(reading:),
                                   appliedInPlace: { $0.controls = [] },
                                   describe: { [("controls", "\($0.controls.count)")] })])
}

extension SettingsKey where Value == V4L2CaptureSource.Configuration {
    /// `device.*`: how a V4L2 camera is opened (read for every source; `device.missing_timeout` serves GStreamer's live sources too).
    public static var device: Self { Self("device", default: V4L2CaptureSource.Configuration()) }
}

extension SyncscanConfiguration {
    /// How to open a V4L2 camera (`device.*`; validated for every source, used by cameras).
    public var device: V4L2CaptureSource.Configuration { get { self[.device] } set { self[.device] = newValue } }
}
