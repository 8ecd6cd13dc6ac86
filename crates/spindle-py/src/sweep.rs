//! The sweep functions of `spindle._core`: the grid is built, expanded and run by the
//! CLI's own `spindle_cli::sweep`, so `spindle.sweep` (local or on Ray workers) and
//! `spindle sweep` give the same points, keys and rows.

use crate::interrupt::interruptible;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyList, PyString, PyTuple};
use spindle_cli::options::MAX_PAIRS;
use spindle_cli::sweep::{run_points, Grid, Row, Value, NESTED_TOO_DEEP};

/// A Python value as a grid value; `at` names it in the error. A list (or tuple) is one
/// value of a repeatable flag (`layer`): `Grid::new` checks its elements, and a list
/// nested in one of its elements is refused here (`depth` counts the lists around `v`).
fn value(v: &Bound<'_, PyAny>, at: &str, depth: usize) -> PyResult<Value> {
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let is_list =
            |x: &Bound<'_, PyAny>| x.is_instance_of::<PyList>() || x.is_instance_of::<PyTuple>();
        // Three lists deep anywhere: refused naming the whole value, as the grid file's is.
        let mut deep = depth >= 2;
        if depth == 0 {
            for item in v.try_iter()? {
                let item = item?;
                if is_list(&item) {
                    for inner in item.try_iter()? {
                        deep |= is_list(&inner?);
                    }
                }
            }
        }
        if deep {
            return Err(PyValueError::new_err(format!(
                "{at}: value {} is {NESTED_TOO_DEEP}",
                v.repr()?
            )));
        }
        let mut items = Vec::new();
        for item in v.try_iter()? {
            if items.len() >= MAX_PAIRS {
                return Err(PyValueError::new_err(format!(
                    "{at}: a list of more than {MAX_PAIRS} values (the most options one run takes)"
                )));
            }
            items.push(value(&item?, at, depth + 1)?);
        }
        return Ok(Value::List(items));
    }
    if v.is_instance_of::<PyBool>() {
        Ok(Value::Bool(v.extract()?))
    } else if v.is_instance_of::<PyInt>() {
        v.extract()
            .map(Value::Int)
            .map_err(|_| PyValueError::new_err(format!("{at}: {v} does not fit in 64 bits")))
    } else if v.is_instance_of::<PyFloat>() {
        Ok(Value::Float(v.extract()?))
    } else if v.is_instance_of::<PyString>() {
        Ok(Value::Str(v.extract()?))
    } else {
        Err(PyValueError::new_err(format!(
            "{at}: expected a str, int, float, bool or (for a repeatable flag such as layer) a list of them, got {}",
            v.get_type().name()?
        )))
    }
}

/// The grid of `axes` [(name, [values])] and `fixed` [(name, value or list)]: a list
/// repeats a fixed flag, None leaves it out.
fn grid(
    axes: Vec<(String, Vec<Bound<'_, PyAny>>)>,
    fixed: Vec<(String, Bound<'_, PyAny>)>,
) -> PyResult<Grid> {
    let mut a = Vec::with_capacity(axes.len());
    for (name, values) in axes {
        let at = format!("grid[{name:?}]");
        let values = values
            .iter()
            .map(|v| value(v, &at, 0))
            .collect::<PyResult<Vec<_>>>()?;
        a.push((name, at, values));
    }
    let mut f = Vec::with_capacity(fixed.len());
    for (name, v) in fixed {
        let at = format!("keyword {name}");
        if v.is_none() {
            continue;
        }
        if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
            for item in v.try_iter()? {
                // A fixed list repeats the flag: its items are single values.
                f.push((name.clone(), at.clone(), value(&item?, &at, 2)?));
            }
        } else {
            f.push((name.clone(), at.clone(), value(&v, &at, 0)?));
        }
    }
    Grid::new(a, f).map_err(value_error)
}

fn value_error(e: anyhow::Error) -> PyErr {
    PyValueError::new_err(format!("{e:#}"))
}

fn py_value<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Int(i) => i.into_pyobject(py)?.into_any(),
        Value::Float(f) => f.into_pyobject(py)?.into_any(),
        Value::Str(s) => s.into_pyobject(py)?.into_any(),
        Value::List(items) => {
            let items = items
                .iter()
                .map(|v| py_value(py, v))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any()
        }
    })
}

/// A row as a tuple in column order (point, key, grid values, metrics).
fn py_row<'py>(py: Python<'py>, r: &Row) -> PyResult<Bound<'py, PyTuple>> {
    let mut cells = vec![
        r.point.into_pyobject(py)?.into_any(),
        r.key.clone().into_pyobject(py)?.into_any(),
    ];
    for v in r.params.iter().chain(&r.metrics) {
        cells.push(py_value(py, v)?);
    }
    PyTuple::new(py, cells)
}

/// Checks a grid and expands it: returns (columns [(name, type)], points [(index, key,
/// (grid values...))]). Every point's options are checked, as `spindle sweep` does.
#[pyfunction]
#[allow(clippy::type_complexity)]
fn sweep_plan<'py>(
    py: Python<'py>,
    axes: Vec<(String, Vec<Bound<'py, PyAny>>)>,
    fixed: Vec<(String, Bound<'py, PyAny>)>,
) -> PyResult<(
    Vec<(String, &'static str)>,
    Vec<(usize, String, Bound<'py, PyTuple>)>,
)> {
    let g = grid(axes, fixed)?;
    py.detach(|| g.check()).map_err(value_error)?;
    let columns = g
        .columns()
        .into_iter()
        .map(|(n, k)| (n, k.name()))
        .collect();
    let mut points = Vec::with_capacity(g.len());
    for i in 0..g.len() {
        let p = g.point(i);
        let params = p
            .params
            .iter()
            .map(|v| py_value(py, v))
            .collect::<PyResult<Vec<_>>>()?;
        points.push((p.index, p.key, PyTuple::new(py, params)?));
    }
    Ok((columns, points))
}

/// Runs the points `indices` of a grid on `jobs` threads with the GIL released and
/// returns their rows (tuples in column order), in point order. `on_row`, if given, is
/// called with each row as it is done (in completion order, on the thread that runs
/// the sweep, not the caller's: a progress bar, a checkpoint); an exception from
/// `on_row` stops the sweep after the running points, Ctrl-C stops those too (a
/// stopped point gives no row).
#[pyfunction]
#[pyo3(signature = (axes, fixed, indices, jobs=1, on_row=None))]
fn sweep_run<'py>(
    py: Python<'py>,
    axes: Vec<(String, Vec<Bound<'py, PyAny>>)>,
    fixed: Vec<(String, Bound<'py, PyAny>)>,
    indices: Vec<usize>,
    jobs: usize,
    on_row: Option<Py<PyAny>>,
) -> PyResult<Vec<Bound<'py, PyTuple>>> {
    let most = spindle_cli::sweep::MAX_JOBS;
    if !(1..=most).contains(&jobs) {
        return Err(PyValueError::new_err(format!(
            "jobs must be within 1..={most}, got {jobs}"
        )));
    }
    let g = grid(axes, fixed)?;
    if let Some(&bad) = indices.iter().find(|&&i| i >= g.len()) {
        return Err(PyValueError::new_err(format!(
            "point {bad} is not in the grid ({} points)",
            g.len()
        )));
    }
    // Ctrl-C stops the running points too, not only the sweep after them.
    let (rows, error) = interruptible(py, || {
        run_points(&g, &indices, jobs, &mut |row| {
            let Some(f) = &on_row else {
                return Ok(());
            };
            Python::attach(|py| f.call1(py, (py_row(py, row)?,)).map(drop))
                .map_err(|e| anyhow::anyhow!(PyErrBox(e)))
        })
    })?;
    if let Some(e) = error {
        // The callback's exception is raised as itself.
        return Err(match e.downcast::<PyErrBox>() {
            Ok(PyErrBox(e)) => e,
            Err(e) => value_error(e),
        });
    }
    rows.iter().map(|r| py_row(py, r)).collect()
}

/// Reads a grid file's text as `spindle sweep` does: returns (axes [(name, [values])],
/// fixed [(name, value)]) for `sweep_plan` and `sweep_run` (a repeated fixed flag comes
/// as consecutive pairs).
#[pyfunction]
#[allow(clippy::type_complexity)]
fn sweep_grid_toml<'py>(
    py: Python<'py>,
    text: &str,
    file: &str,
) -> PyResult<(
    Vec<(String, Vec<Bound<'py, PyAny>>)>,
    Vec<(String, Bound<'py, PyAny>)>,
)> {
    let g = Grid::from_toml(text, file).map_err(value_error)?;
    let mut axes = Vec::with_capacity(g.axes.len());
    for a in &g.axes {
        let values = a
            .values
            .iter()
            .map(|v| py_value(py, v))
            .collect::<PyResult<Vec<_>>>()?;
        axes.push((a.name.clone(), values));
    }
    let fixed = g
        .fixed
        .iter()
        .map(|(n, v)| Ok((n.clone(), py_value(py, v)?)))
        .collect::<PyResult<Vec<_>>>()?;
    Ok((axes, fixed))
}

/// A Python exception carried through the sweep's error path.
struct PyErrBox(PyErr);

impl std::fmt::Debug for PyErrBox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl std::fmt::Display for PyErrBox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl std::error::Error for PyErrBox {}

/// Adds the sweep functions to `spindle._core`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(sweep_plan, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_run, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_grid_toml, m)?)?;
    Ok(())
}
