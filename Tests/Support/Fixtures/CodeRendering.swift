#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A point in continuous frame coordinates: pixel (i, j) covers [i, i+1) × [j, j+1).
public struct FixturePoint: Sendable, Hashable, CustomStringConvertible {
    public var x: Double, y: Double
    public init(x: Double, y: Double) { self.x = x; self.y = y }

    /// Euclidean distance to an integer pixel position such as a zbar point.
    public func distance(toX px: Int, y py: Int) -> Double {
        ((x - Double(px)) * (x - Double(px)) + (y - Double(py)) * (y - Double(py))).squareRoot()
    }

    public var description: String { "(\(x), \(y))" }
}

/// Where a code landed in a frame: what a test needs to check reported corners and crops.
public struct RenderedCode: Sendable, Hashable {
    /// Outer corner of the code's module (0, 0) (quiet zone excluded), after rotation.
    public var topLeft: FixturePoint
    /// Outer corner of module (columns-1, 0).
    public var topRight: FixturePoint
    /// Outer corner of module (columns-1, rows-1).
    public var bottomRight: FixturePoint
    /// Outer corner of module (0, rows-1).
    public var bottomLeft: FixturePoint
    /// The code's centre (the rotation centre).
    public var center: FixturePoint
    /// Pixels per module.
    public var moduleSize: Double
    /// Clockwise on screen (y points down), degrees.
    public var rotationDegrees: Double

    /// The code's corners in the order top-left, top-right, bottom-right, bottom-left of the code itself.
    public var corners: [FixturePoint] { [topLeft, topRight, bottomRight, bottomLeft] }

    /// The smallest pixel rectangle holding the four corners (quiet zone not included).
    public var boundingBox: (x: Int, y: Int, width: Int, height: Int) {
        let xs = corners.map(\.x), ys = corners.map(\.y)
        let x0 = Int(xs.min()!.rounded(.down)), y0 = Int(ys.min()!.rounded(.down))
        let x1 = Int(xs.max()!.rounded(.up)), y1 = Int(ys.max()!.rounded(.up))
        return (x0, y0, x1 - x0, y1 - y0)
    }
}

extension GreyFrame {
    /// Draws `matrix` with its top-left module corner at (`x`, `y`) before rotation, `moduleSize`
    /// pixels per module, turned `rotationDegrees` clockwise about the code's centre.
    ///
    /// The quiet zone (`matrix.quietZone` modules) is painted `light` too, so a code may sit on
    /// any background. Each pixel is sampled at `samplesPerAxis`² points (1 = nearest neighbour;
    /// 3 or 4 anti-aliases rotated edges into grey). Parts outside the frame are clipped; row
    /// padding is never touched. Returns the exact corners as drawn.
    @discardableResult
    public mutating func draw(_ matrix: ModuleMatrix, x: Double, y: Double, moduleSize: Double,
                              rotationDegrees: Double = 0, dark: UInt8 = 0, light: UInt8 = 255,
                              samplesPerAxis: Int = 1) -> RenderedCode {
        precondition(moduleSize > 0 && samplesPerAxis >= 1, "moduleSize and samplesPerAxis must be positive")
        let codeWidth = Double(matrix.columns) * moduleSize, codeHeight = Double(matrix.rows) * moduleSize
        let quiet = Double(matrix.quietZone) * moduleSize
        let cx = x + codeWidth / 2, cy = y + codeHeight / 2
        let (sinA, cosA) = exactSineCosine(degrees: rotationDegrees)

        // Code-local (unrotated, origin at the code's top-left) → frame, and back.
        func toFrame(_ u: Double, _ v: Double) -> FixturePoint {
            let dx = u - codeWidth / 2, dy = v - codeHeight / 2
            return FixturePoint(x: cx + dx * cosA - dy * sinA, y: cy + dx * sinA + dy * cosA)
        }
        func toLocal(_ px: Double, _ py: Double) -> (u: Double, v: Double) {
            let dx = px - cx, dy = py - cy
            return (dx * cosA + dy * sinA + codeWidth / 2, -dx * sinA + dy * cosA + codeHeight / 2)
        }

        let outer = [toFrame(-quiet, -quiet), toFrame(codeWidth + quiet, -quiet),
                     toFrame(codeWidth + quiet, codeHeight + quiet), toFrame(-quiet, codeHeight + quiet)]
        let minX = max(0, Int(outer.map(\.x).min()!.rounded(.down)))
        let maxX = min(width - 1, Int(outer.map(\.x).max()!.rounded(.up)))
        let minY = max(0, Int(outer.map(\.y).min()!.rounded(.down)))
        let maxY = min(height - 1, Int(outer.map(\.y).max()!.rounded(.up)))
        let step = 1.0 / Double(samplesPerAxis)
        if minX <= maxX && minY <= maxY {
            for py in minY...maxY {
                for px in minX...maxX {
                    var sum = 0, inside = 0
                    for sy in 0..<samplesPerAxis {
                        for sx in 0..<samplesPerAxis {
                            let (u, v) = toLocal(Double(px) + (Double(sx) + 0.5) * step, Double(py) + (Double(sy) + 0.5) * step)
                            guard u >= -quiet, u < codeWidth + quiet, v >= -quiet, v < codeHeight + quiet else { continue }
                            inside += 1
                            let column = Int((u / moduleSize).rounded(.down)), row = Int((v / moduleSize).rounded(.down))
                            let isDark = column >= 0 && column < matrix.columns && row >= 0 && row < matrix.rows && matrix[column, row]
                            sum += Int(isDark ? dark : light)
                        }
                    }
                    guard inside > 0 else { continue }
                    let total = samplesPerAxis * samplesPerAxis
                    sum += Int(self[px, py]) * (total - inside)
                    self[px, py] = UInt8((sum + total / 2) / total)
                }
            }
        }
        return RenderedCode(topLeft: toFrame(0, 0), topRight: toFrame(codeWidth, 0),
                            bottomRight: toFrame(codeWidth, codeHeight), bottomLeft: toFrame(0, codeHeight),
                            center: FixturePoint(x: cx, y: cy), moduleSize: moduleSize, rotationDegrees: rotationDegrees)
    }

    /// Draws `matrix` centred on (`centerX`, `centerY`); otherwise as `draw(_:x:y:moduleSize:…)`.
    @discardableResult
    public mutating func draw(_ matrix: ModuleMatrix, centerX: Double, centerY: Double, moduleSize: Double,
                              rotationDegrees: Double = 0, dark: UInt8 = 0, light: UInt8 = 255,
                              samplesPerAxis: Int = 1) -> RenderedCode {
        draw(matrix, x: centerX - Double(matrix.columns) * moduleSize / 2, y: centerY - Double(matrix.rows) * moduleSize / 2,
             moduleSize: moduleSize, rotationDegrees: rotationDegrees, dark: dark, light: light, samplesPerAxis: samplesPerAxis)
    }
}

/// sin and cos of an angle in degrees, exact for multiples of 90° so axis-aligned codes stay crisp.
func exactSineCosine(degrees: Double) -> (sin: Double, cos: Double) {
    let remainder = degrees.truncatingRemainder(dividingBy: 360)
    let normalized = remainder < 0 ? remainder + 360 : remainder
    switch normalized {
    case 0: return (0, 1)
    case 90: return (1, 0)
    case 180: return (0, -1)
    case 270: return (-1, 0)
    default:
        let r = normalized * Double.pi / 180
        return (sin(r), cos(r))
    }
}
