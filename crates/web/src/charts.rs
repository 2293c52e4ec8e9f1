//! The spending charts page: the card's debits of the last six months by
//! month (bars) or by transaction group (pie), drawn as SVG on the server
//! with plotters, and the same numbers as a table for screen readers.

use crate::layout::{error_page, page};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use app::rewards::{CHART_MONTHS, ChartKind, SpendingChart};
use domain::{Amount, Currency};
use maud::{PreEscaped, html};
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
    let empty = chart.slices.iter().all(|(_, amount)| *amount == Amount::ZERO);
    let svg = if empty { String::new() } else { draw(&chart) };
    page(
        StatusCode::OK,
        title,
        html! {
            h1 { (title) }
            p.muted { "The last " (CHART_MONTHS) " months, in " (chart.currency.code()) "." }
            @if empty {
                p.empty { "No spending on this card in the last " (CHART_MONTHS) " months yet." }
            } @else {
                figure.chart aria-hidden="true" { (PreEscaped(svg)) }
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
        },
    )
}

/// `USD 1,234.56`.
fn money(currency: Currency, amount: Amount) -> String {
    let minor = amount.minor();
    let major = (minor / 100).to_string();
    let mut grouped = String::new();
    for (n, digit) in major.chars().enumerate() {
        if n > 0 && (major.len() - n).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    format!("{} {grouped}.{:02}", currency.code(), minor % 100)
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

/// The chart as an SVG document: its labels and amounts are in it, as
/// text.
fn draw(chart: &SpendingChart) -> String {
    let mut svg = String::new();
    let drawn = {
        let height = match chart.kind {
            ChartKind::Bar => 280,
            ChartKind::Pie => 230 + 24 * chart.slices.len() as u32,
        };
        let root = SVGBackend::with_string(&mut svg, (360, height)).into_drawing_area();
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
        .margin(12)
        .x_label_area_size(28)
        .y_label_area_size(44)
        .build_cartesian_2d((0..labels.len()).into_segmented(), 0.0..top)?;
    area.configure_mesh()
        .disable_x_mesh()
        .x_labels(labels.len())
        .x_label_formatter(&|x| match x {
            SegmentValue::CenterOf(n) => labels.get(*n).cloned().unwrap_or_default(),
            _ => String::new(),
        })
        .y_label_formatter(&|y| format!("{y:.0}"))
        .label_style(("sans-serif", 13))
        .draw()?;
    area.draw_series(
        Histogram::vertical(&area)
            .style(COLOURS[0].filled())
            .margin(8)
            .data(chart.slices.iter().enumerate().map(|(n, (_, a))| (n, major(*a)))),
    )?;
    // Each month's amount above its bar.
    let style = ("sans-serif", 12)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Center, VPos::Bottom));
    area.draw_series(
        chart
            .slices
            .iter()
            .enumerate()
            .filter(|(_, (_, a))| *a > Amount::ZERO)
            .map(|(n, (_, amount))| {
                let at = (SegmentValue::CenterOf(n), major(*amount) + top * 0.02);
                Text::new(format!("{:.2}", major(*amount)), at, style.clone())
            }),
    )?;
    Ok(())
}

fn pie<'a>(root: &Area<'a>, chart: &SpendingChart) -> Drawn<'a> {
    root.fill(&WHITE)?;
    let sizes: Vec<f64> = chart.slices.iter().map(|(_, a)| major(*a)).collect();
    let colours: Vec<RGBColor> = (0..sizes.len()).map(|n| COLOURS[n % COLOURS.len()]).collect();
    let no_labels = vec![""; sizes.len()];
    let (center, radius) = ((180, 112), 96.0);
    let mut pie = Pie::new(&center, &radius, &sizes, &colours, &no_labels);
    pie.start_angle(-90.0);
    pie.percentages(("sans-serif", 13).into_font().color(&WHITE));
    root.draw(&pie)?;
    // The legend: each group's colour, name and amount.
    for (n, (group, amount)) in chart.slices.iter().enumerate() {
        let y = 232 + 24 * n as i32;
        root.draw(&Rectangle::new([(16, y), (30, y + 14)], colours[n].filled()))?;
        let text = format!("{group}: {}", money(chart.currency, *amount));
        root.draw(&Text::new(text, (38, y), ("sans-serif", 14).into_font().color(&BLACK)))?;
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
