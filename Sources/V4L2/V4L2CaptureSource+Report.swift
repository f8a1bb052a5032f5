import Media

extension V4L2CaptureSource {
    /// The camera as it says of itself: `v4l2`, `V4L2 camera PATH (CARD)`, the mode negotiated on
    /// the current open (`VIDIOC_S_FMT`, `VIDIOC_G_PARM`; `nil` while not streaming), the control
    /// settings in force with the failures so far, its reopens and since when it is missing.
    public var report: SourceReport {
        let mode = currentFormat.map { format in
            SourceMode(width: format.width, height: format.height, format: format.fourcc.description,
                       framesPerSecond: format.frameInterval.map(\.framesPerSecond).flatMap { $0 > 0 ? $0 : nil }, origin: "negotiated")
        }
        let label = "V4L2 camera \(path)" + (cardName.map { " (\($0))" } ?? "")
        let controls = SourceControls(settings: controlSettings.map { SourceControls.Setting(name: $0.name, value: $0.value) },
                                      failures: controlFailures)
        return SourceReport(kind: "v4l2", label: label, mode: mode, controls: controls,
                            health: SourceHealth(missingSince: missingSince, reopens: reopens))
    }
}
