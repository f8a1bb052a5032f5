/// GS1's Application Identifiers and their value formats, as data.
///
/// Source: the GS1 Barcode Syntax Dictionary (`gs1-syntax-dictionary.txt`, github.com/gs1/gs1-syntax-dictionary),
/// which transcribes the AI table of the GS1 General Specifications (section 3.2); its notation is kept:
/// one line per AI or AI range, then the value's components. `N` digits, `X` GS1's CSET 82, `Y` CSET 39,
/// `Z` CSET 64 (base64url); `N14` exactly 14, `X..20` 1 to 20; `[…]` an optional component. Checks after a
/// comma: `csum` a GS1 mod-10 check digit as last digit, `yymmdd` a date, `yymmd0` a date whose day may be
/// 00 (the month's end), `yyyymmdd` a date with its century, `hhmm` a time. Every AI of the dictionary as
/// zxing-cpp 3.1.1's bundled libzint carries it (GS1 General Specifications Release 25) is here, with its
/// lengths: `GS1SyntaxDictionaryTests` asks libzint's checker, through zxing-cpp's creator, about every
/// possible AI and each AI's longest value. Rules of an AI's own beyond these checks (a country code from
/// ISO 3166, an IBAN, a coupon's fields) are not checked. An AI not in this table is reported as unknown,
/// never passed as valid.
enum GS1ApplicationIdentifiers {
    static let table = """
    00 N18,csum
    01 N14,csum
    02 N14,csum
    03 N14,csum
    10 X..20
    11 N6,yymmd0
    12 N6,yymmd0
    13 N6,yymmd0
    15 N6,yymmd0
    16 N6,yymmd0
    17 N6,yymmd0
    20 N2
    21 X..20
    22 X..20
    235 X..28
    240 X..30
    241 X..30
    242 N..6
    243 X..20
    250 X..30
    251 X..30
    253 N13,csum [X..17]
    254 X..20
    255 N13,csum [N..12]
    30 N..8
    3100-3105 N6
    3110-3115 N6
    3120-3125 N6
    3130-3135 N6
    3140-3145 N6
    3150-3155 N6
    3160-3165 N6
    3200-3205 N6
    3210-3215 N6
    3220-3225 N6
    3230-3235 N6
    3240-3245 N6
    3250-3255 N6
    3260-3265 N6
    3270-3275 N6
    3280-3285 N6
    3290-3295 N6
    3300-3305 N6
    3310-3315 N6
    3320-3325 N6
    3330-3335 N6
    3340-3345 N6
    3350-3355 N6
    3360-3365 N6
    3370-3375 N6
    3400-3405 N6
    3410-3415 N6
    3420-3425 N6
    3430-3435 N6
    3440-3445 N6
    3450-3455 N6
    3460-3465 N6
    3470-3475 N6
    3480-3485 N6
    3490-3495 N6
    3500-3505 N6
    3510-3515 N6
    3520-3525 N6
    3530-3535 N6
    3540-3545 N6
    3550-3555 N6
    3560-3565 N6
    3570-3575 N6
    3600-3605 N6
    3610-3615 N6
    3620-3625 N6
    3630-3635 N6
    3640-3645 N6
    3650-3655 N6
    3660-3665 N6
    3670-3675 N6
    3680-3685 N6
    3690-3695 N6
    37 N..8
    3900-3909 N..15
    3910-3919 N3 N..15
    3920-3929 N..15
    3930-3939 N3 N..15
    3940-3943 N4
    3950-3955 N6
    400 X..30
    401 X..30
    402 N17,csum
    403 X..30
    410 N13,csum
    411 N13,csum
    412 N13,csum
    413 N13,csum
    414 N13,csum
    415 N13,csum
    416 N13,csum
    417 N13,csum
    420 X..20
    421 N3 X..9
    422 N3
    423 N3 [N..12]
    424 N3
    425 N3 [N..12]
    426 N3
    427 X..3
    4300 X..35
    4301 X..35
    4302 X..70
    4303 X..70
    4304 X..70
    4305 X..70
    4306 X..70
    4307 X2
    4308 X..30
    4309 N20
    4310 X..35
    4311 X..35
    4312 X..70
    4313 X..70
    4314 X..70
    4315 X..70
    4316 X..70
    4317 X2
    4318 X..20
    4319 X..30
    4320 X..35
    4321 N1
    4322 N1
    4323 N1
    4324 N6,yymmdd N4,hhmm
    4325 N6,yymmdd N4,hhmm
    4326 N6,yymmdd
    4330-4333 N6 [X1]
    7001 N13
    7002 X..30
    7003 N6,yymmdd N4,hhmm
    7004 N..4
    7005 X..12
    7006 N6,yymmdd
    7007 N6,yymmdd [N6,yymmdd]
    7008 X..3
    7009 X..10
    7010 X..2
    7011 N6,yymmdd [N4,hhmm]
    7020 X..20
    7021 X..20
    7022 X..20
    7023 X..30
    7030-7039 N3 X..27
    7040 N1 X3
    7041 X..4
    710-717 X..20
    7230-7239 X2 X..28
    7240 X..20
    7241 N2
    7242 X..25
    7250 N8,yyyymmdd
    7251 N8,yyyymmdd N4,hhmm
    7252 N1
    7253 X..40
    7254 X..40
    7255 X..10
    7256 X..90
    7257 X..70
    7258 X3
    7259 X..40
    8001 N14
    8002 X..20
    8003 N1 N13,csum [X..16]
    8004 X..30
    8005 N6
    8006 N14,csum N2 N2
    8007 X..34
    8008 N8 [N..4]
    8009 X..50
    8010 Y..30
    8011 N..12
    8012 X..20
    8013 X..25
    8014 X..25
    8017 N18,csum
    8018 N18,csum
    8019 N..10
    8020 X..25
    8026 N14,csum N2 N2
    8030 Z..90
    8040 N15
    8041 N15
    8042 N32
    8043 N18 [N..2]
    8110 X..70
    8111 N4
    8112 X..70
    8200 X..70
    90 X..30
    91-99 X..90
    """

    /// The AIs GS1 predefines as fixed-length by their first two digits (General Specifications,
    /// figure 7.8.5-2): no FNC1 follows them. Every other AI's value ends at an FNC1 (GS) or the end,
    /// even one whose format is of fixed length.
    static let predefinedLengthPrefixes: Set<String> = [
        "00", "01", "02", "03", "04", "11", "12", "13", "14", "15", "16", "17", "18", "19", "20",
        "31", "32", "33", "34", "35", "36", "41",
    ]

    /// The AIs that are a primary key in a GS1 Digital Link URI's path (GS1 Digital Link standard, 1.x).
    static let digitalLinkPrimaryKeys: Set<String> = [
        "00", "01", "253", "255", "401", "402", "414", "417", "8003", "8004", "8006", "8010", "8013", "8017", "8018",
    ]
}
