/// A TurboJPEG call failed: which call and libturbojpeg's reason (`tjGetErrorStr2`).
public struct JPEGError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The TurboJPEG function that failed (`tjCompress2`, `tjCompressFromYUVPlanes`, `tjInitCompress`).
    public var call: String
    public var reason: String

    public init(call: String, reason: String) {
        self.call = call
        self.reason = reason
    }

    public var description: String {
        "\(call) failed: \(reason). The frame is not saved; if it repeats for every frame, check the frame size "
            + "and format (libturbojpeg0 must be installed and match libturbojpeg0-dev)"
    }
}
