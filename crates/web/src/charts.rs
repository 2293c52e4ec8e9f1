//! The spending charts page: the card's debits of the last six months by
//! month (bars) or by transaction group (pie), drawn as SVG on the server
//! with plotters, and the same numbers as a table for screen readers.

use crate::layout::{error_page, page};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use app::rewards::{CHART_MONTHS, ChartKind, SpendingChart};
use domain::{Amount, Currency};
use maud::{Markup, PreEscaped, html};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use serde::Deserialize;

#[derive(Deserialize)]
pub struct Query {
    card_token: Option<String>,
    chart_type: Option<String>,
}

pub async fn show(app: web::Data<app::App>, query: web::Query<Query>) -> HttpResponse {
    let query = query.into_inner();
    let chart = match app.spending_chart(query.card_token, query.chart_type.as_deref()).await {
        Ok(chart) => chart,
        Err(e) => return error_page(e),
    };
    let title = match chart.kind {
        ChartKind::Bar => "Spending by month",
        ChartKind::Pie => "Spending by category",
    };
    page(
        StatusCode::OK,
        title,
        html! {
            h1 { (title) }
            (figure(&chart, title))
        },
    )
}

/// The chart as drawn, and the same numbers as a table for screen
/// readers; or a note that there is no spending yet (the dashboard's card
/// page shows it too).
pub(crate) fn figure(chart: &SpendingChart, title: &str) -> Markup {
    let empty = chart.slices.iter().all(|(_, amount)| *amount == Amount::ZERO);
    html! {
        p.muted { "The last " (CHART_MONTHS) " months, in " (chart.currency.code()) "." }
        @if empty {
            p.empty { "No spending on this card in the last " (CHART_MONTHS) " months yet." }
        } @else {
            figure.chart aria-hidden="true" { (PreEscaped(draw(chart))) }
            table {
                caption { (title) }
                thead { tr { th { @if chart.kind == ChartKind::Bar { "Month" } @else { "Category" } } th.amount { "Amount" } } }
                tbody {
                    @for (label, amount) in &chart.slices {
                        tr { td { (label) } td.amount { (money(chart.currency, *amount)) } }
                    }
                }
            }
        }
    }
}

/// `USD 1,234.56` (the console shows money so too).
pub(crate) fn money(currency: Currency, amount: Amount) -> String {
    format!("{} {}", currency.code(), decimal(amount))
}

/// `1,234.56`: the table's grouping, on the chart too.
fn decimal(amount: Amount) -> String {
    let minor = amount.minor();
    format!("{}.{:02}", thousands(minor / 100), minor % 100)
}

/// `1,234`.
fn thousands(whole: i64) -> String {
    let digits = whole.to_string();
    let mut grouped = String::new();
    for (n, digit) in digits.chars().enumerate() {
        if n > 0 && (digits.len() - n).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    grouped
}

fn major(amount: Amount) -> f64 {
    amount.minor() as f64 / 100.0
}

const COLOURS: [RGBColor; 8] = [
    RGBColor(11, 110, 79),
    RGBColor(230, 126, 34),
    RGBColor(41, 128, 185),
    RGBColor(142, 68, 173),
    RGBColor(192, 57, 43),
    RGBColor(22, 160, 133),
    RGBColor(243, 156, 18),
    RGBColor(127, 140, 141),
];

/// The chart's drawing units per pixel of its 360-pixel-wide layout:
/// plotters draws on whole units, so the pie's edges and the text are
/// placed on thirds of a pixel, and the page scales the SVG to its width.
const SCALE: i32 = 3;

/// A length of the layout, in drawing units.
fn px(pixels: i32) -> i32 {
    pixels * SCALE
}

/// The text of the chart as large as the page's (the SVG is drawn about
/// as wide as it is shown on a phone).
fn font(pixels: i32) -> FontDesc<'static> {
    ("sans-serif", f64::from(px(pixels))).into_font()
}

/// The smallest slice whose share is written on it: a thinner one has no
/// room, and its share is in the legend's amounts.
const LABELLED_SHARE: f64 = 0.05;

/// The chart as an SVG document: its labels and amounts are in it, as
/// text.
fn draw(chart: &SpendingChart) -> String {
    let mut svg = String::new();
    let drawn = {
        let height = match chart.kind {
            ChartKind::Bar => 280,
            ChartKind::Pie => 230 + 26 * chart.slices.len() as i32,
        };
        let size = (px(360) as u32, px(height) as u32);
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        match chart.kind {
            ChartKind::Bar => bars(&root, chart),
            ChartKind::Pie => pie(&root, chart),
        }
        .and_then(|()| root.present())
    };
    if let Err(e) = drawn {
        tracing::error!(error = %e, "a spending chart could not be drawn");
        return String::new();
    }
    svg
}

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;
type Drawn<'a> = Result<(), DrawingAreaErrorKind<<SVGBackend<'a> as DrawingBackend>::ErrorType>>;

fn bars<'a>(root: &Area<'a>, chart: &SpendingChart) -> Drawn<'a> {
    root.fill(&WHITE)?;
    let top = chart.slices.iter().map(|(_, a)| major(*a)).fold(1.0, f64::max) * 1.2;
    // `2026-07` shows as `07/26`: six fit under their bars.
    let labels: Vec<String> = chart
        .slices
        .iter()
        .map(|(month, _)| format!("{}/{}", &month[5..], &month[2..4]))
        .collect();
    let mut area = ChartBuilder::on(root)
        .margin(px(12))
        .x_label_area_size(px(30))
        .y_label_area_size(px(56))
        .build_cartesian_2d((0..labels.len()).into_segmented(), 0.0..top)?;
    area.configure_mesh()
        .disable_x_mesh()
        .x_labels(labels.len())
        .x_label_formatter(&|x| match x {
            SegmentValue::CenterOf(n) => labels.get(*n).cloned().unwrap_or_default(),
            _ => String::new(),
        })
        .y_label_formatter(&|y| thousands(y.round() as i64))
        .label_style(font(16))
        .axis_style(BLACK.stroke_width(SCALE as u32))
        .light_line_style(WHITE)
        .bold_line_style(RGBColor(221, 226, 232).stroke_width(SCALE as u32))
        .draw()?;
    area.draw_series(
        Histogram::vertical(&area)
            .style(COLOURS[0].filled())
            .margin(px(8) as u32)
            .data(chart.slices.iter().enumerate().map(|(n, (_, a))| (n, major(*a)))),
    )?;
    // Each month's amount above its bar, grouped as the table's.
    let style = font(15).color(&BLACK).pos(Pos::new(HPos::Center, VPos::Bottom));
    area.draw_series(
        chart
            .slices
            .iter()
            .enumerate()
            .filter(|(_, (_, a))| *a > Amount::ZERO)
            .map(|(n, (_, amount))| {
                let at = (SegmentValue::CenterOf(n), major(*amount) + top * 0.02);
                Text::new(decimal(*amount), at, style.clone())
            }),
    )?;
    Ok(())
}

fn pie<'a>(root: &Area<'a>, chart: &SpendingChart) -> Drawn<'a> {
    root.fill(&WHITE)?;
    let sizes: Vec<f64> = chart.slices.iter().map(|(_, a)| major(*a)).collect();
    let colours: Vec<RGBColor> = (0..sizes.len()).map(|n| COLOURS[n % COLOURS.len()]).collect();
    let no_labels = vec![""; sizes.len()];
    let (center, radius) = ((px(180), px(112)), f64::from(px(96)));
    let mut pie = Pie::new(&center, &radius, &sizes, &colours, &no_labels);
    pie.start_angle(-90.0);
    root.draw(&pie)?;
    // Each slice's share, on the slices wide enough to hold it.
    let total: f64 = sizes.iter().sum();
    let style = font(16).color(&WHITE).pos(Pos::new(HPos::Center, VPos::Center));
    let mut start = -std::f64::consts::FRAC_PI_2;
    for size in &sizes {
        let share = size / total;
        let middle = start + share * std::f64::consts::PI;
        start += share * std::f64::consts::TAU;
        if share >= LABELLED_SHARE {
            let at = (
                center.0 + (radius * 0.62 * middle.cos()).round() as i32,
                center.1 + (radius * 0.62 * middle.sin()).round() as i32,
            );
            root.draw(&Text::new(format!("{:.0}%", share * 100.0), at, style.clone()))?;
        }
    }
    // The legend: each group's colour, name and amount.
    for (n, (group, amount)) in chart.slices.iter().enumerate() {
        let y = px(232 + 26 * n as i32);
        root.draw(&Rectangle::new(
            [(px(16), y), (px(32), y + px(16))],
            colours[n].filled(),
        ))?;
        let text = format!("{group}: {}", money(chart.currency, *amount));
        root.draw(&Text::new(text, (px(40), y), font(17).color(&BLACK)))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_groups_thousands_and_keeps_the_minor_units() {
        let at = |minor| money(Currency::Usd, Amount::from_minor(minor).unwrap());
        assert_eq!(at(5), "USD 0.05");
        assert_eq!(at(123_456_789), "USD 1,234,567.89");
        assert_eq!(at(100_000), "USD 1,000.00");
        assert_eq!(thousands(1_500_000), "1,500,000");
    }

    /// Naira amounts run to millions: the bars' labels group them as the
    /// table does, and a sliver of a pie carries no `0%`.
    #[test]
    fn bar_labels_group_thousands_and_thin_slices_carry_no_share() {
        let months = vec![
            ("2026-10".to_string(), Amount::from_minor(123_456_700).unwrap()),
            ("2026-11".to_string(), Amount::from_minor(5_000).unwrap()),
        ];
        let svg = draw(&SpendingChart {
            kind: ChartKind::Bar,
            currency: Currency::Ngn,
            slices: months,
        });
        assert!(svg.contains("1,234,567.00"), "{svg}");
        let slices = vec![
            ("Retail".to_string(), Amount::from_minor(1_000_000).unwrap()),
            ("Fees".to_string(), Amount::from_minor(1).unwrap()),
        ];
        let svg = draw(&SpendingChart {
            kind: ChartKind::Pie,
            currency: Currency::Ngn,
            slices,
        });
        let shares: Vec<&str> = svg.lines().filter(|l| l.ends_with('%')).collect();
        assert_eq!(shares, ["100%"], "the sliver's share is not written");
        assert!(svg.contains("Fees: NGN 0.01"));
    }

    #[test]
    fn charts_draw_every_label_escaped() {
        let slices = vec![("Food & Drink".to_string(), Amount::from_minor(1_250).unwrap())];
        let months: Vec<(String, Amount)> = vec![("2026-11".to_string(), Amount::from_minor(1_250).unwrap())];
        for kind in [ChartKind::Bar, ChartKind::Pie] {
            let slices = if kind == ChartKind::Bar {
                months.clone()
            } else {
                slices.clone()
            };
            let chart = SpendingChart {
                kind,
                currency: Currency::Usd,
                slices,
            };
            let svg = draw(&chart);
            assert!(svg.starts_with("<svg"), "{svg}");
            assert!(svg.contains("12.50"), "{svg}");
            if kind == ChartKind::Pie {
                assert!(svg.contains("Food &amp; Drink: USD 12.50"), "{svg}");
            }
        }
    }
}
