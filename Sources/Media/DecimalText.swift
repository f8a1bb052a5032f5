/// Decimal numerals written by hand: the one number formatter for timestamps (`MediaTime`,
/// JSON lines), frame rates and intervals (V4L2 logs, `syncscan devices`) and the stats line.
///
/// Exact and locale-free: a value kept in integer units (nanoseconds) is written digit for
/// digit, never through `Double`.
public enum DecimalText {
    /// `units ÷ 10^fractionDigits`, e.g. `(12_500_000_000, 9)` → `12.5`, `(-1, 3)` → `-0.001`;
    /// trailing zeros of the fraction are dropped down to `minimumFractionDigits` (0: and the point).
    public static func string(units: Int64, fractionDigits: Int, minimumFractionDigits: Int = 0) -> String {
        precondition((0...18).contains(fractionDigits) && minimumFractionDigits <= fractionDigits)
        var scale: UInt64 = 1
        for _ in 0..<fractionDigits { scale *= 10 }
        let magnitude = units.magnitude
        let whole = String(magnitude / scale)
        var fraction = fractionDigits == 0 ? [] : Array(String(magnitude % scale).utf8)
        fraction.insert(contentsOf: repeatElement(UInt8(ascii: "0"), count: fractionDigits - fraction.count), at: 0)
        while fraction.count > minimumFractionDigits, fraction.last == UInt8(ascii: "0") { fraction.removeLast() }
        let sign = units < 0 ? "-" : ""
        return fraction.isEmpty ? sign + whole : sign + whole + "." + String(decoding: fraction, as: UTF8.self)
    }

    /// `value` rounded to `fractionDigits` decimals, e.g. `(29.97, 3, 3)` → `29.970`, `(1000, 3)` → `1000`.
    /// Values beyond ±9.2e18 units, infinities and NaN are written as Swift writes a `Double`.
    public static func string(_ value: Double, fractionDigits: Int, minimumFractionDigits: Int = 0) -> String {
        var scale = 1.0
        for _ in 0..<fractionDigits { scale *= 10 }
        let scaled = (value * scale).rounded()
        guard let units = Int64(exactly: scaled) else { return String(value) }
        return string(units: units, fractionDigits: fractionDigits, minimumFractionDigits: minimumFractionDigits)
    }
}
