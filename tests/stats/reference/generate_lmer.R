# lme4 / lmerTest reference fits for the data sets written by generate_lmm.py.
#
# Run from the repository root, after generate_lmm.py:
#
#     Rscript tests/stats/reference/generate_lmer.R
#
# For each tests/stats/reference/lmm_NAME.json it writes lmm_NAME.lme4.json with the lmerTest
# (Satterthwaite) coefficient table, variance components, REML criterion, theta, lme4's
# singularity verdict and optimiser messages. The optimiser is tighter than lme4's default
# (nloptwrap BOBYQA, xtol_abs = ftol_abs = 1e-8): see polished_bobyqa below.
suppressPackageStartupMessages({
  library(lme4)
  library(lmerTest)
  library(jsonlite)
  library(numDeriv)
  library(minqa)
})

dir <- "tests/stats/reference"
names <- c("small", "boundary", "crossed", "mira", "crossed_boundary", "escape")
args <- commandArgs(trailingOnly = TRUE)
if (length(args) > 0) names <- args  # e.g. `Rscript tests/stats/reference/generate_lmer.R escape`

to_frame <- function(ds) {
  cols <- list()
  for (v in names(ds$levels)) {
    lev <- unlist(ds$levels[[v]])
    cols[[v]] <- factor(lev[unlist(ds$codes[[v]]) + 1], levels = lev)  # reference level first
  }
  y <- sapply(ds$response, function(r) if (is.null(r)) NA_real_ else as.numeric(r))
  cols$y <- y
  as.data.frame(cols, stringsAsFactors = FALSE)
}

fixed_formula <- function(ds) {
  terms <- vapply(ds$fixed, function(t) if (length(t) == 0) "1" else paste(unlist(t), collapse = ":"), "")
  random <- paste0("(1 | ", unlist(ds$random), ")", collapse = " + ")
  paste("y ~", paste(terms, collapse = " + "), "+", random)
}

# lme4 "languagezh:hlslow" -> "language=zh:hls=low" using the known variables and levels
our_name <- function(col, ds) {
  if (col == "(Intercept)") return(col)
  parts <- strsplit(col, ":", fixed = TRUE)[[1]]
  out <- character(0)
  for (p in parts) {
    hit <- NULL
    for (v in names(ds$levels)) {
      for (l in unlist(ds$levels[[v]])) if (identical(p, paste0(v, l))) hit <- paste0(v, "=", l)
    }
    if (is.null(hit)) stop("cannot map column ", col)
    out <- c(out, hit)
  }
  paste(out, collapse = ":")
}

# BOBYQA (minqa) followed by Newton steps on a Richardson-extrapolated numerical gradient
# (numDeriv, wide steps). Near the optimum the REML criterion is so flat (and its evaluation
# noisy at ~1e-10) that a derivative-free optimiser alone places theta only to ~1e-6, which
# would move Satterthwaite df by ~2e-6. The polish brings the gradient to the noise floor
# (~1e-8). Components at the boundary (theta < 1e-4, lme4's isSingular rule) are left at it.
polished_bobyqa <- function(par, fn, lower, upper, control = list(), ...) {
  r <- minqa::bobyqa(par, fn, lower = lower, upper = upper, control = list(rhoend = 1e-12))
  th <- r$par
  ma <- list(eps = 1e-2, d = 2e-2, r = 6)
  for (it in 1:6) {
    free <- th > 1e-4
    if (!any(free)) break
    g <- numDeriv::grad(fn, th, method.args = ma)
    H <- numDeriv::hessian(fn, th, method.args = list(eps = 1e-2, d = 2e-2, r = 4))
    step <- numeric(length(th))
    step[free] <- solve(H[free, free, drop = FALSE], g[free])
    th <- pmax(th - step, lower)
    if (max(abs(step)) < 1e-11) break
  }
  list(par = th, fval = fn(th), conv = 0, feval = r$feval,
       message = "minqa::bobyqa(rhoend = 1e-12) + Newton polish on numDeriv gradient")
}

ctrl <- lmerControl(optimizer = "polished_bobyqa", calc.derivs = FALSE)

for (nm in names) {
  path <- file.path(dir, paste0("lmm_", nm, ".json"))
  ds <- fromJSON(path, simplifyVector = FALSE)
  df <- to_frame(ds)
  f <- fixed_formula(ds)
  t0 <- proc.time()[["elapsed"]]
  msgs <- character(0)
  fit <- withCallingHandlers(
    lmerTest::lmer(as.formula(f), data = df, REML = TRUE, control = ctrl),
    message = function(m) { msgs <<- c(msgs, conditionMessage(m)); invokeRestart("muffleMessage") },
    warning = function(w) { msgs <<- c(msgs, conditionMessage(w)); invokeRestart("muffleWarning") })
  secs <- proc.time()[["elapsed"]] - t0
  tab <- coef(summary(fit, ddf = "Satterthwaite"))
  vc <- as.data.frame(VarCorr(fit))
  groups <- unlist(ds$random)
  gvar <- sapply(groups, function(g) vc$vcov[vc$grp == g])
  # REML gradient at the reported optimum (central differences on lme4's own devfun)
  dev <- as.function(update(fit, devFunOnly = TRUE))
  th <- getME(fit, "theta")
  h <- 1e-6
  grad <- sapply(seq_along(th), function(k) {
    e <- replace(numeric(length(th)), k, h)
    (dev(th + e) - dev(pmax(th - e, 0))) / (h + min(h, th[k]))
  })
  # Wald SEs of the variances by the delta method from lmerTest's vcov_varpar = 2 H^{-1} in
  # (theta, sigma), H from numDeriv::hessian of devfun_vp
  A <- fit@vcov_varpar
  s <- sigma(fit)
  K <- length(th)
  gvar_se <- sapply(seq_len(K), function(k) {
    g <- numeric(K + 1); g[k] <- 2 * th[k] * s^2; g[K + 1] <- 2 * s * th[k]^2
    sqrt(drop(t(g) %*% A %*% g))
  })
  resid_se <- 2 * s * sqrt(A[K + 1, K + 1])
  out <- list(
    call = paste0("lmerTest::lmer(", f, ", REML = TRUE, control = lmerControl(optimizer = ",
                  "'polished_bobyqa')), then coef(summary(fit, ddf = 'Satterthwaite'))"),
    command = "Rscript tests/stats/reference/generate_lmer.R",
    versions = list(R = R.version.string, lme4 = as.character(packageVersion("lme4")),
                    lmerTest = as.character(packageVersion("lmerTest")),
                    jsonlite = as.character(packageVersion("jsonlite"))),
    names = vapply(rownames(tab), our_name, "", ds = ds),
    estimate = unname(tab[, "Estimate"]), se = unname(tab[, "Std. Error"]),
    df = unname(tab[, "df"]), t = unname(tab[, "t value"]), p = unname(tab[, "Pr(>|t|)"]),
    p_normal = unname(2 * pnorm(-abs(tab[, "t value"]))),  # Wald z p-value, statsmodels convention
    groups = I(groups), group_variance = I(unname(gvar)),
    n_groups = I(unname(lme4::ngrps(fit)[groups])),  # groups with an observed response
    residual_variance = sigma(fit)^2, theta = I(unname(th)),
    group_variance_se = I(unname(gvar_se)), residual_variance_se = resid_se,
    reml_criterion = unname(REMLcrit(fit)), logLik = as.numeric(logLik(fit)),
    nobs = nobs(fit), is_singular = isSingular(fit), messages = I(msgs),
    devfun_gradient = I(unname(grad)), fit_seconds = secs)
  write_json(out, file.path(dir, paste0("lmm_", nm, ".lme4.json")), digits = NA, auto_unbox = TRUE,
             pretty = TRUE)
  cat("wrote", nm, "singular:", isSingular(fit), "theta:", th, "\n")
}
