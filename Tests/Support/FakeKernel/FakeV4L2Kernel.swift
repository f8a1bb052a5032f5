import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Media
import SystemPackage
import V4L2

/// A V4L2 capture driver played in memory behind the `V4L2Kernel` seam, for tests.
///
/// It behaves like a videobuf2 driver where it matters: one file owns the buffers (another
/// REQBUFS gets EBUSY), DQBUF is non-blocking, sequence numbers restart at 0 on STREAMON,
/// poll reports POLLERR when not streaming or unplugged. Descriptors are real (each open opens a
/// file under a private temporary directory, so a leak shows in `/proc/self/fd`), mappings are
/// heap blocks it counts. A script of `Step`s decides what each dequeue yields, including
/// stalls and unplugs; `inject(_:into:times:)` makes a call fail with an errno.
public final class FakeV4L2Kernel: V4L2Kernel, @unchecked Sendable {
    /// A format the fake driver offers.
    public struct Format: Sendable {
        public var fourcc: FourCC
        public var description: String
        public var compressed: Bool
        public var emulated: Bool
        public var sizes: [V4L2FrameSize]
        /// Offered at every size not in `intervalsBySize`.
        public var intervals: [V4L2Fraction]
        /// A UVC camera's table: the intervals (discrete or stepwise) at each size, by `"WxH"`.
        public var intervalsBySize: [String: [V4L2FrameInterval]] = [:]

        public init(_ fourcc: FourCC, _ description: String = "", compressed: Bool = false, emulated: Bool = false,
                    sizes: [V4L2FrameSize], intervals: [V4L2Fraction] = [V4L2Fraction(numerator: 1, denominator: 30)]) {
            self.fourcc = fourcc
            self.description = description.isEmpty ? fourcc.description : description
            self.compressed = compressed
            self.emulated = emulated
            self.sizes = sizes
            self.intervals = intervals
        }
    }

    /// A control the fake driver offers, and what gates it.
    public struct Control: Sendable {
        public var description: V4L2ControlDescription
        /// Settable only while control `id` has `value` (else EACCES, as a UVC camera refuses a
        /// manual exposure or focus while its automatic mode is on).
        public var requires: (id: UInt32, value: Int64)?

        public init(_ description: V4L2ControlDescription, requires: (id: UInt32, value: Int64)? = nil) {
            self.description = description
            self.requires = requires
        }
    }

    /// What the device is: its capabilities, formats, frame rate and how S_FMT adjusts requests.
    public struct Driver: Sendable {
        public var capability: V4L2Capability
        public var formats: [Format]
        /// Its controls; every open with no other descriptor open resets them to their defaults
        /// (a camera replugged or its driver reloaded).
        public var controls: [Control] = []
        /// G_PARM/S_PARM's time per frame; `nil`: the driver cannot set it (no V4L2_CAP_TIMEPERFRAME).
        public var timePerFrame: V4L2Fraction?
        /// VIDIOC_S_FMT: the format the driver sets for a request.
        public var adjustFormat: @Sendable (V4L2PixelFormat, [Format]) -> V4L2PixelFormat
        /// VIDIOC_S_PARM takes the interval asked for (G_PARM then returns it), as UVC cameras do;
        /// `false`: it always answers `timePerFrame`.
        public var setsFrameInterval = false
        /// The bytes of a compressed frame (an MJPEG camera's JPEG) by sequence number; `nil`: raw
        /// frames filled with the sequence number's low byte.
        public var compressedFrame: (@Sendable (UInt32) -> [UInt8])?

        public init(capability: V4L2Capability = FakeV4L2Kernel.cameraCapability, formats: [Format],
                    timePerFrame: V4L2Fraction? = V4L2Fraction(numerator: 1, denominator: 1000),
                    adjustFormat: @escaping @Sendable (V4L2PixelFormat, [Format]) -> V4L2PixelFormat = FakeV4L2Kernel.nearestFormat) {
            self.capability = capability
            self.formats = formats
            self.timePerFrame = timePerFrame
            self.adjustFormat = adjustFormat
        }

        /// A small YUYV/GREY camera (64x48, 32x24), 1000 frames a second, so tests run fast.
        public static func smallCamera() -> Driver {
            Driver(formats: [
                Format(.yuyv, "YUYV 4:2:2", sizes: [.discrete(width: 64, height: 48), .discrete(width: 32, height: 24)]),
                Format(.grey, "8-bit Greyscale", sizes: [.discrete(width: 64, height: 48), .discrete(width: 32, height: 24)]),
            ])
        }

        /// `smallCamera` with a UVC webcam's controls: brightness; auto exposure (a menu whose
        /// index 2 is skipped) gating the exposure time; continuous autofocus gating the focus
        /// (steps of 5); power line frequency; a read-only pan speed; a class heading.
        public static func cameraWithControls() -> Driver {
            var driver = smallCamera()
            driver.controls = [
                Control(V4L2ControlDescription(id: 0x0098_0001, name: "User Controls", type: .controlClass)),
                Control(V4L2ControlDescription(id: 0x0098_0900, name: "Brightness", type: .integer, minimum: 0, maximum: 255,
                                               defaultValue: 128, flags: .slider)),
                Control(V4L2ControlDescription(id: 0x0098_0918, name: "Power Line Frequency", type: .menu, minimum: 0, maximum: 2,
                                               defaultValue: 1, menu: [V4L2MenuItem(index: 0, name: "Disabled"),
                                                                       V4L2MenuItem(index: 1, name: "50 Hz"), V4L2MenuItem(index: 2, name: "60 Hz")])),
                Control(V4L2ControlDescription(id: 0x009a_0901, name: "Auto Exposure", type: .menu, minimum: 0, maximum: 3,
                                               defaultValue: 3, menu: [V4L2MenuItem(index: 1, name: "Manual Mode"),
                                                                       V4L2MenuItem(index: 3, name: "Aperture Priority Mode")])),
                Control(V4L2ControlDescription(id: 0x009a_0902, name: "Exposure Time, Absolute", type: .integer, minimum: 3,
                                               maximum: 2047, defaultValue: 250), requires: (0x009a_0901, 1)),
                Control(V4L2ControlDescription(id: 0x009a_090a, name: "Focus, Absolute", type: .integer, minimum: 0, maximum: 250,
                                               step: 5, defaultValue: 0), requires: (0x009a_090c, 0)),
                Control(V4L2ControlDescription(id: 0x009a_090c, name: "Focus, Automatic Continuous", type: .boolean, minimum: 0,
                                               maximum: 1, defaultValue: 1)),
                Control(V4L2ControlDescription(id: 0x009a_0911, name: "Pan, Speed", type: .integer, minimum: -1, maximum: 1,
                                               flags: .readOnly)),
            ]
            return driver
        }
    }

    /// What the driver does at the next dequeue.
    public enum Step: Sendable, Hashable {
        /// A good frame: bytesused = sizeimage.
        case frame
        /// A frame with V4L2_BUF_FLAG_ERROR set.
        case errorFlagged
        /// A buffer with bytesused 0.
        case empty
        /// A buffer with half the frame's bytes (a truncated JPEG for a compressed frame).
        case short
        /// A buffer of bytes that are no JPEG (and no picture): 4096 bytes of noise.
        case garbage
        /// Skip `n` sequence numbers (frames the driver lost); takes no buffer.
        case skip(UInt32)
        /// No buffer completes until the device is opened again.
        case stall
        /// The device disappears: open descriptors get ENODEV/POLLERR, the next `missingOpens`
        /// opens get ENOENT, then it is back as a new device instance.
        case unplug(missingOpens: Int)
    }

    /// Calls a fault can be injected into.
    public enum Call: Hashable, Sendable {
        case open, queryCapability, setFormat, requestBuffers, queueBuffer, dequeueBuffer, streamOn, map, setControl
    }

    /// One buffer the driver handed out by DQBUF.
    public struct Delivery: Sendable, Hashable {
        public var step: Step
        public var index: Int
        public var sequence: UInt32
        public var timestamp: MediaTime
        public var bytesUsed: Int
        /// Where the buffer was mapped by the descriptor that dequeued it (address bits).
        public var address: UInt?
    }

    public static let cameraCapability = V4L2Capability(
        driver: "fakev4l2", card: "Fake Camera", busInfo: "platform:fake-0",
        capabilities: [.videoCapture, .streaming, .readWrite, .deviceCaps],
        deviceCapabilities: [.videoCapture, .streaming, .readWrite])

    /// The path the device answers to.
    public let path: String
    /// The real file each open opens (its entries in /proc/self/fd are this fake's descriptors).
    public let nodeFile: String
    private let directory: String
    private let driver: Driver
    private let script: [Step]
    private let afterScript: Step
    private let condition = NSCondition()

    private struct OpenFile {
        var generation: Int
        var buffers: [Bool] = []          // queued?
        var order: [Int] = []             // queued indices, oldest first
        var mapped: [Int: UnsafeMutableRawPointer] = [:]
        var bufferLength = 0
        var streaming = false
        var sequence: UInt32 = 0
    }
    private struct Mapping { var fd: CInt; var index: Int; var length: Int }

    private var files: [CInt: OpenFile] = [:]
    private var mappings: [UnsafeMutableRawPointer: Mapping] = [:]
    private var bufferOwner: CInt?
    private var generation = 1
    private var missingOpens = 0
    private var stepIndex = 0
    private var format: V4L2PixelFormat
    /// What S_PARM set, for a driver that `setsFrameInterval`.
    private var currentInterval: V4L2Fraction?
    private var injected: [Call: [Errno]] = [:]
    private var controlValues: [UInt32: Int64] = [:]
    private var _setControlRequests: [(id: UInt32, value: Int64)] = []

    // Observations.
    private var _openCount = 0
    private var _openAttempts = 0
    private var _streamOnAttempts = 0
    private var _streamOnCount = 0
    private var _unplugs = 0
    private var _backoffSleeps = 0
    private var _maximumOpen = 0
    private var _violations: [String] = []
    private var _refusedBufferFrees = 0
    private var _setFormatRequests: [V4L2PixelFormat] = []
    private var _frameIntervalRequests: [V4L2Fraction] = []
    private var _delivered: [Delivery] = []

    /// A device at `path` running `script`, then `afterScript` forever.
    public init(path: String = "/dev/video0", driver: Driver = .smallCamera(), script: [Step] = [], afterScript: Step = .frame) {
        self.path = path
        self.driver = driver
        self.script = script
        self.afterScript = afterScript
        var template = Array("/tmp/fake-v4l2-XXXXXX".utf8CString)
        directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        nodeFile = directory + "/" + (path.split(separator: "/").last.map(String.init) ?? "video")
        let fd = Glibc.open(nodeFile, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
        if fd >= 0 { Glibc.close(fd) }
        let first = driver.formats.first
        let size: (Int, Int) = switch first?.sizes.first {
        case .discrete(let w, let h)?: (w, h)
        case .stepwise(_, let w, _, _, let h, _, _)?: (w, h)
        case nil: (640, 480)
        }
        format = driver.adjustFormat(V4L2PixelFormat(width: size.0, height: size.1, fourcc: first?.fourcc ?? .yuyv), driver.formats)
    }

    deinit {
        for (address, _) in mappings { address.deallocate() }
        unlink(nodeFile)
        rmdir(directory)
    }

    /// VIDIOC_S_FMT as most drivers do it: the fourcc if offered (else the first), the nearest
    /// size, minimal bytesperline, and sizeimage to match.
    public static let nearestFormat: @Sendable (V4L2PixelFormat, [Format]) -> V4L2PixelFormat = { request, formats in
        let chosen = formats.first { $0.fourcc == request.fourcc } ?? formats[0]
        var best = (width: request.width, height: request.height)
        var distance = Int.max
        for size in chosen.sizes {
            let candidate: (width: Int, height: Int)
            switch size {
            case .discrete(let w, let h): candidate = (w, h)
            case .stepwise(let minW, let maxW, let stepW, let minH, let maxH, let stepH, _):
                candidate = (minW + (min(max(request.width, minW), maxW) - minW) / stepW * stepW,
                             minH + (min(max(request.height, minH), maxH) - minH) / stepH * stepH)
            }
            let d = abs(candidate.width - request.width) + abs(candidate.height - request.height)
            if d < distance { distance = d; best = candidate }
        }
        return FakeV4L2Kernel.completed(V4L2PixelFormat(width: best.width, height: best.height, fourcc: chosen.fourcc))
    }

    /// `format` with bytesperline (if 0) and sizeimage filled in.
    public static func completed(_ format: V4L2PixelFormat) -> V4L2PixelFormat {
        var f = format
        let layout = f.fourcc.pixelFormat
        if layout?.isCompressed == true {
            // uvcvideo: no bytesperline, sizeimage the largest frame the camera may send.
            f.bytesPerLine = 0
            f.sizeImage = f.width * f.height * 2
            return f
        }
        if f.bytesPerLine == 0 { f.bytesPerLine = layout?.minimumBytesPerLine(width: f.width) ?? f.width * 2 }
        f.sizeImage = layout?.frameSize(width: f.width, height: f.height, bytesPerLine: f.bytesPerLine) ?? f.bytesPerLine * f.height
        return f
    }

    // MARK: - Scripting and observing

    /// Makes the next `times` calls of `call` fail with `errno` (`Int.max`: always).
    public func inject(_ errno: Errno, into call: Call, times: Int = 1) {
        locked { injected[call, default: []] += Array(repeating: errno, count: min(times, 10_000)) }
    }

    /// Successful opens.
    public var openCount: Int { locked { _openCount } }
    /// Every open, failed or not.
    public var openAttempts: Int { locked { _openAttempts } }
    public var streamOnAttempts: Int { locked { _streamOnAttempts } }
    public var streamOnCount: Int { locked { _streamOnCount } }
    public var unplugCount: Int { locked { _unplugs } }
    /// Polls with no device: the source sleeping between reconnect attempts.
    public var backoffSleeps: Int { locked { _backoffSleeps } }
    /// Descriptors open now.
    public var liveDescriptors: Int { locked { files.count } }
    /// The most descriptors open at once.
    public var maximumOpenDescriptors: Int { locked { _maximumOpen } }
    /// Buffers mapped and not yet unmapped.
    public var liveMappings: Int { locked { mappings.count } }
    /// Misuse the driver saw: unknown descriptors, double QBUF, bad munmap…
    public var violations: [String] { locked { _violations } }
    /// VIDIOC_REQBUFS calls refused because buffers of the descriptor were still mapped
    /// (libv4l2's `v4l2_check_buffer_change_ok` returns EBUSY then).
    public var refusedBufferFrees: Int { locked { _refusedBufferFrees } }
    /// Every VIDIOC_S_FMT request, as asked.
    public var setFormatRequests: [V4L2PixelFormat] { locked { _setFormatRequests } }
    /// A control's value now (its default until set; defaults again after an open that found no other descriptor open).
    public func controlValue(_ id: UInt32) -> Int64? {
        locked { controlValues[id] ?? driver.controls.first { $0.description.id == id }?.description.defaultValue }
    }
    /// Every VIDIOC_S_EXT_CTRLS request, in order, refused or not.
    public var setControlRequests: [(id: UInt32, value: Int64)] { locked { _setControlRequests } }
    /// Every VIDIOC_S_PARM request.
    public var frameIntervalRequests: [V4L2Fraction] { locked { _frameIntervalRequests } }
    /// Every buffer handed out by DQBUF.
    public var delivered: [Delivery] { locked { _delivered } }
    /// Buffers queued in the driver by descriptors streaming on the current device instance.
    public var queuedBuffers: Int {
        locked { files.values.filter { $0.streaming && $0.generation == generation }.map(\.order.count).reduce(0, +) }
    }

    /// Entries of `/proc/self/fd` that are this fake's device descriptors.
    public func descriptorsInProcess() -> Int {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return entries.filter { name in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name))?.hasPrefix(nodeFile) == true
        }.count
    }

    /// Waits until `predicate` holds (checked on every driver call) or `timeout` passes.
    @discardableResult
    public func wait(timeout: Duration = hangTimeout, until predicate: (FakeV4L2Kernel) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18)
        while !predicate(self) {
            condition.lock()
            let alive = condition.wait(until: min(deadline, Date().addingTimeInterval(0.05)))
            condition.unlock()
            if !alive && Date() >= deadline { return predicate(self) }
        }
        return true
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        condition.lock()
        defer { condition.broadcast(); condition.unlock() }
        return try body()
    }

    private func takeInjected(_ call: Call) -> Errno? {
        guard var list = injected[call], !list.isEmpty else { return nil }
        let errno = list.removeFirst()
        injected[call] = list
        return errno
    }

    private var head: Step { stepIndex < script.count ? script[stepIndex] : afterScript }

    private func unplug(missing: Int) {
        generation += 1
        missingOpens = missing
        bufferOwner = nil
        _unplugs += 1
        stepIndex += 1
    }

    /// The live file for `fd` on the current device instance, or the errno a driver gives.
    private func liveFile(_ fd: CInt, _ call: String) -> Result<OpenFile, Errno> {
        guard let file = files[fd] else {
            _violations.append("\(call) on unknown descriptor \(fd)")
            return .failure(.badFileDescriptor)
        }
        guard file.generation == generation else { return .failure(.operationNotSupportedByDevice) }
        if case .unplug(let missing) = head, file.streaming {
            unplug(missing: missing)
            return .failure(.operationNotSupportedByDevice)
        }
        return .success(file)
    }

    // MARK: - V4L2Kernel

    public func open(_ path: String) -> Result<CInt, Errno> {
        locked {
            _openAttempts += 1
            if let errno = takeInjected(.open) { return .failure(errno) }
            guard path == self.path else { return .failure(.noSuchFileOrDirectory) }
            if missingOpens > 0 {
                if missingOpens != .max { missingOpens -= 1 }
                return .failure(.noSuchFileOrDirectory)
            }
            let fd = Glibc.open(nodeFile, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return .failure(Errno(rawValue: Glibc.errno)) }
            if files.isEmpty { controlValues = [:] }  // a fresh start of the driver: defaults
            files[fd] = OpenFile(generation: generation)
            _openCount += 1
            _maximumOpen = max(_maximumOpen, files.count)
            if case .stall = head { stepIndex += 1 }
            return .success(fd)
        }
    }

    public func close(_ fd: CInt) -> Result<Void, Errno> {
        locked {
            guard files.removeValue(forKey: fd) != nil else {
                _violations.append("close of unknown descriptor \(fd)")
                return .failure(.badFileDescriptor)
            }
            if bufferOwner == fd { bufferOwner = nil }
            Glibc.close(fd)
            return .success(())
        }
    }

    public func queryCapability(_ fd: CInt) -> Result<V4L2Capability, Errno> {
        locked {
            if let errno = takeInjected(.queryCapability) { return .failure(errno) }
            return liveFile(fd, "VIDIOC_QUERYCAP").map { _ in driver.capability }
        }
    }

    public func enumerateFormat(_ fd: CInt, index: Int) -> Result<V4L2FormatDescription, Errno> {
        locked {
            liveFile(fd, "VIDIOC_ENUM_FMT").flatMap { _ in
                guard driver.formats.indices.contains(index) else { return .failure(.invalidArgument) }
                let f = driver.formats[index]
                return .success(V4L2FormatDescription(index: index, fourcc: f.fourcc, description: f.description,
                                                      isCompressed: f.compressed, isEmulated: f.emulated))
            }
        }
    }

    public func enumerateFrameSize(_ fd: CInt, fourcc: FourCC, index: Int) -> Result<V4L2FrameSize, Errno> {
        locked {
            liveFile(fd, "VIDIOC_ENUM_FRAMESIZES").flatMap { _ in
                guard let f = driver.formats.first(where: { $0.fourcc == fourcc }), f.sizes.indices.contains(index) else {
                    return .failure(.invalidArgument)
                }
                return .success(f.sizes[index])
            }
        }
    }

    public func enumerateFrameInterval(_ fd: CInt, fourcc: FourCC, width: Int, height: Int, index: Int) -> Result<V4L2FrameInterval, Errno> {
        locked {
            liveFile(fd, "VIDIOC_ENUM_FRAMEINTERVALS").flatMap { _ in
                guard let f = driver.formats.first(where: { $0.fourcc == fourcc }) else { return .failure(.invalidArgument) }
                if !f.intervalsBySize.isEmpty {
                    guard let list = f.intervalsBySize["\(width)x\(height)"], list.indices.contains(index) else { return .failure(.invalidArgument) }
                    // A stepwise entry is the only one (VIDIOC_ENUM_FRAMEINTERVALS index 0).
                    if case .stepwise = list[index], index > 0 { return .failure(.invalidArgument) }
                    return .success(list[index])
                }
                guard f.intervals.indices.contains(index) else { return .failure(.invalidArgument) }
                return .success(.discrete(f.intervals[index]))
            }
        }
    }

    public func setFormat(_ fd: CInt, _ request: V4L2PixelFormat) -> Result<V4L2PixelFormat, Errno> {
        locked {
            liveFile(fd, "VIDIOC_S_FMT").flatMap { _ in
                _setFormatRequests.append(request)
                if let errno = takeInjected(.setFormat) { return .failure(errno) }
                if bufferOwner != nil { return .failure(.resourceBusy) }
                format = driver.adjustFormat(request, driver.formats)
                return .success(format)
            }
        }
    }

    public func getFrameInterval(_ fd: CInt) -> Result<V4L2Fraction?, Errno> {
        locked { liveFile(fd, "VIDIOC_G_PARM").map { _ in currentInterval ?? driver.timePerFrame } }
    }

    public func setFrameInterval(_ fd: CInt, _ interval: V4L2Fraction) -> Result<V4L2Fraction?, Errno> {
        locked {
            liveFile(fd, "VIDIOC_S_PARM").map { _ in
                _frameIntervalRequests.append(interval)
                guard driver.setsFrameInterval else { return driver.timePerFrame }
                currentInterval = interval
                return interval
            }
        }
    }

    public func requestBuffers(_ fd: CInt, count: Int) -> Result<Int, Errno> {
        locked {
            liveFile(fd, "VIDIOC_REQBUFS").flatMap { file in
                if let errno = takeInjected(.requestBuffers) { return .failure(errno) }
                if let owner = bufferOwner, owner != fd { return .failure(.resourceBusy) }
                if file.streaming && count > 0 { return .failure(.resourceBusy) }
                // libv4l2 refuses to change the buffers while any of them is mapped.
                if !file.mapped.isEmpty { _refusedBufferFrees += 1; return .failure(.resourceBusy) }
                var file = file
                file.streaming = false
                file.order = []
                file.mapped = [:]          // existing mappings stay valid (orphaned) until munmap
                let granted = min(count, 8)
                file.buffers = Array(repeating: false, count: granted)
                file.bufferLength = (format.sizeImage + 4095) / 4096 * 4096
                bufferOwner = granted > 0 ? fd : nil
                files[fd] = file
                return .success(granted)
            }
        }
    }

    public func queryBuffer(_ fd: CInt, index: Int) -> Result<V4L2BufferLocation, Errno> {
        locked {
            liveFile(fd, "VIDIOC_QUERYBUF").flatMap { file in
                guard file.buffers.indices.contains(index) else { return .failure(.invalidArgument) }
                return .success(V4L2BufferLocation(index: index, length: file.bufferLength, offset: Int64(index) << 16))
            }
        }
    }

    public func queueBuffer(_ fd: CInt, index: Int) -> Result<Void, Errno> {
        locked {
            liveFile(fd, "VIDIOC_QBUF").flatMap { file in
                if let errno = takeInjected(.queueBuffer) { return .failure(errno) }
                guard file.buffers.indices.contains(index) else {
                    _violations.append("VIDIOC_QBUF of buffer \(index) of \(file.buffers.count)")
                    return .failure(.invalidArgument)
                }
                guard !file.buffers[index] else {
                    _violations.append("VIDIOC_QBUF of buffer \(index), already queued")
                    return .failure(.invalidArgument)
                }
                var file = file
                file.buffers[index] = true
                file.order.append(index)
                files[fd] = file
                return .success(())
            }
        }
    }

    public func dequeueBuffer(_ fd: CInt) -> Result<V4L2DequeuedBuffer, Errno> {
        locked {
            liveFile(fd, "VIDIOC_DQBUF").flatMap { file in
                if let errno = takeInjected(.dequeueBuffer) { return .failure(errno) }
                guard file.streaming else { return .failure(.invalidArgument) }
                var file = file
                while case .skip(let n) = head {
                    file.sequence &+= n
                    stepIndex += 1
                }
                let step = head
                switch step {
                case .stall, .unplug, .skip: return .failure(.resourceTemporarilyUnavailable)
                case .frame, .errorFlagged, .empty, .short, .garbage: break
                }
                guard !file.order.isEmpty else { return .failure(.resourceTemporarilyUnavailable) }
                stepIndex += 1
                let index = file.order.removeFirst()
                file.buffers[index] = false
                let sequence = file.sequence
                file.sequence &+= 1
                var payload: [UInt8]? = driver.compressedFrame?(sequence)
                if step == .garbage {
                    var noise = SystemRandomNumberGenerator()
                    payload = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &noise) }
                }
                let whole = min(payload?.count ?? format.sizeImage, file.bufferLength)
                let bytesUsed = switch step {
                case .empty: 0
                case .short: whole / 2
                default: whole
                }
                if let address = file.mapped[index] {
                    if let payload {
                        payload.withUnsafeBytes { address.copyMemory(from: $0.baseAddress!, byteCount: bytesUsed) }
                    } else {
                        address.initializeMemory(as: UInt8.self, repeating: UInt8(truncatingIfNeeded: sequence), count: min(bytesUsed, file.bufferLength))
                    }
                }
                let period = currentInterval?.duration ?? driver.timePerFrame?.duration ?? .milliseconds(1)
                let interval = Int64(period.components.attoseconds / 1_000_000_000) + period.components.seconds * 1_000_000_000
                let timestamp = MediaTime(nanoseconds: Int64(file.generation) * 1_000_000_000_000 + Int64(sequence) * interval)
                files[fd] = file
                _delivered.append(Delivery(step: step, index: index, sequence: sequence, timestamp: timestamp,
                                           bytesUsed: bytesUsed, address: file.mapped[index].map { UInt(bitPattern: $0) }))
                return .success(V4L2DequeuedBuffer(index: index, bytesUsed: bytesUsed,
                                                   flags: step == .errorFlagged ? V4L2DequeuedBuffer.errorFlag : 0,
                                                   sequence: sequence, timestamp: timestamp))
            }
        }
    }

    public func streamOn(_ fd: CInt) -> Result<Void, Errno> {
        locked {
            liveFile(fd, "VIDIOC_STREAMON").flatMap { file in
                _streamOnAttempts += 1
                if let errno = takeInjected(.streamOn) { return .failure(errno) }
                guard !file.buffers.isEmpty else { return .failure(.invalidArgument) }
                var file = file
                file.streaming = true
                file.sequence = 0
                files[fd] = file
                _streamOnCount += 1
                return .success(())
            }
        }
    }

    public func streamOff(_ fd: CInt) -> Result<Void, Errno> {
        locked {
            liveFile(fd, "VIDIOC_STREAMOFF").map { file in
                var file = file
                file.streaming = false
                file.order = []
                file.buffers = file.buffers.map { _ in false }
                files[fd] = file
            }
        }
    }

    public func map(_ fd: CInt, length: Int, offset: Int64) -> Result<UnsafeMutableRawPointer, Errno> {
        locked {
            liveFile(fd, "mmap").flatMap { file in
                if let errno = takeInjected(.map) { return .failure(errno) }
                let index = Int(offset >> 16)
                guard offset & 0xffff == 0, file.buffers.indices.contains(index), length <= file.bufferLength else {
                    _violations.append("mmap of offset \(offset) length \(length)")
                    return .failure(.invalidArgument)
                }
                let address = UnsafeMutableRawPointer.allocate(byteCount: max(length, 1), alignment: 64)
                address.initializeMemory(as: UInt8.self, repeating: 0, count: length)
                mappings[address] = Mapping(fd: fd, index: index, length: length)
                var file = file
                file.mapped[index] = address
                files[fd] = file
                return .success(address)
            }
        }
    }

    public func unmap(_ address: UnsafeMutableRawPointer, length: Int) -> Result<Void, Errno> {
        locked {
            guard let mapping = mappings[address], mapping.length == length else {
                _violations.append("munmap of an address that is not a mapping (or wrong length \(length))")
                return .failure(.invalidArgument)
            }
            mappings[address] = nil
            if var file = files[mapping.fd], file.mapped[mapping.index] == address {
                file.mapped[mapping.index] = nil
                files[mapping.fd] = file
            }
            address.deallocate()
            return .success(())
        }
    }

    private func control(_ id: UInt32) -> Control? { driver.controls.first { $0.description.id == id } }

    public func queryNextControl(_ fd: CInt, after id: UInt32) -> Result<V4L2ControlDescription, Errno> {
        locked {
            liveFile(fd, "VIDIOC_QUERY_EXT_CTRL").flatMap { _ in
                let next = driver.controls.map(\.description).filter { $0.id > id }.min { $0.id < $1.id }
                guard var description = next else { return .failure(.invalidArgument) }
                description.menu = []  // VIDIOC_QUERYMENU gives the items
                return .success(description)
            }
        }
    }

    public func queryMenuItem(_ fd: CInt, control id: UInt32, index: Int64, type: V4L2ControlType) -> Result<V4L2MenuItem, Errno> {
        locked {
            liveFile(fd, "VIDIOC_QUERYMENU").flatMap { _ in
                guard let item = control(id)?.description.menu.first(where: { $0.index == index }) else { return .failure(.invalidArgument) }
                return .success(item)
            }
        }
    }

    public func getControl(_ fd: CInt, id: UInt32, type: V4L2ControlType) -> Result<Int64, Errno> {
        locked {
            liveFile(fd, "VIDIOC_G_EXT_CTRLS").flatMap { _ in
                guard let control = control(id) else { return .failure(.invalidArgument) }
                return .success(controlValues[id] ?? control.description.defaultValue)
            }
        }
    }

    /// EINVAL for an unknown control, a value out of range or a menu index it lacks; EACCES for a
    /// read-only control or one its automatic mode holds. A value between steps is rounded down
    /// to a step, as the kernel's control framework does.
    public func setControl(_ fd: CInt, id: UInt32, type: V4L2ControlType, value: Int64) -> Result<Void, Errno> {
        locked {
            _setControlRequests.append((id, value))
            if let errno = takeInjected(.setControl) { return .failure(errno) }
            return liveFile(fd, "VIDIOC_S_EXT_CTRLS").flatMap { _ in
                guard let control = control(id) else { return .failure(.invalidArgument) }
                let d = control.description
                if d.flags.contains(.readOnly) { return .failure(.permissionDenied) }
                if let (gate, required) = control.requires, (controlValues[gate] ?? self.control(gate)?.description.defaultValue) != required {
                    return .failure(.permissionDenied)
                }
                guard value >= d.minimum, value <= d.maximum else { return .failure(.invalidArgument) }
                if d.type == .menu || d.type == .integerMenu, !d.menu.contains(where: { $0.index == value }) { return .failure(.invalidArgument) }
                let step = Int64(max(1, d.step))
                controlValues[id] = d.minimum + (value - d.minimum) / step * step
                return .success(())
            }
        }
    }

    public func poll(device: CInt?, wakeDescriptor: CInt, timeout: Duration) -> Result<V4L2PollEvents, Errno> {
        let ready: V4L2PollEvents = locked {
            guard let device else {
                _backoffSleeps += 1
                return []
            }
            guard let file = files[device] else {
                _violations.append("poll on unknown descriptor \(device)")
                return .error
            }
            if file.generation != generation || !file.streaming { return .error }
            switch head {
            case .unplug(let missing):
                unplug(missing: missing)
                return .error
            case .stall: return []
            default: return file.order.isEmpty ? [] : .readable
            }
        }
        var wake = pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)
        let waitMilliseconds: CInt = ready.isEmpty
            ? CInt(clamping: timeout.components.seconds * 1000 + (timeout.components.attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
            : 0
        var result: CInt
        repeat { result = Glibc.poll(&wake, 1, waitMilliseconds) } while result == -1 && Glibc.errno == EINTR
        if result < 0 { return .failure(Errno(rawValue: Glibc.errno)) }
        return .success(wake.revents & Int16(POLLIN) != 0 ? ready.union(.wakeUp) : ready)
    }
}
