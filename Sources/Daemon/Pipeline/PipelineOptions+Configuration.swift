extension PipelineOptions {
    /// The pipeline a loaded configuration describes; `emitFrames` and `frameLimit` are per-run
    /// command-line choices, not configuration.
    public init(_ c: SyncscanConfiguration, emitFrames: Bool = false, frameLimit: Int? = nil) {
        self.init(source: c.source)
        device.width = c.device.width
        device.height = c.device.height
        device.framesPerSecond = c.device.fps
        device.fourcc = c.device.fourcc?.rawValue
        device.maximumWidth = c.device.maxWidth
        device.maximumHeight = c.device.maxHeight
        device.bufferCount = c.device.buffers
        video = c.videoDataOutput
        metadata = c.metadataSettings
        scanningThreads = c.scanningThreads
        duplicateWindow = c.duplicateSuppression.enabled ? c.duplicateSuppression.windowSeconds : 0
        outputQueueLines = c.output.queueLines
        statsInterval = c.statsIntervalSeconds
        self.emitFrames = emitFrames
        self.frameLimit = frameLimit
    }
}
