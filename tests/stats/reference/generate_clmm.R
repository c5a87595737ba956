# Reference fits of cumulative-link mixed models (ordinal::clmm, logit link, Laplace) for
# tests/stats/test_clmm.cpp. The data are generated here, with set.seed, from a latent
# logistic model; data and fits go to tests/stats/reference/clmm.json.
#
# Run from the repository root (Debian: apt-get install r-base-core r-cran-ordinal):
#
#     Rscript tests/stats/reference/generate_clmm.R
#
# Standard errors. summary(clmm) inverts ordinal's Hessian, taken by deriv12 (plain second
# differences, step 1e-4) of the Laplace objective, whose inner Newton for the modes stops at
# gradTol: the objective's noise divided by the squared step makes that Hessian inaccurate in
# the 2nd digit (on `small` its threshold SEs move from 0.34 to 0.52 with gradTol). So the
# SEs pinned here ("se") are sqrt(diag(solve(H))) with H from numDeriv::hessian (Richardson)
# of the Laplace objective written out below (laplace_nll: modes by optimize() to 1e-12,
# curvature analytic), at ordinal's estimates; ordinal's own are kept as "se_summary".
#
# Each case stores its data in the layout of the lmm reference sets (levels with the
# reference first, integer codes, response, fixed terms, random intercepts), so that
# tests/stats/lmm_reference.hpp can rebuild the model frame, and R's fit: thresholds and
# coefficients with SEs (summary(clmm)), the random-intercept variance, logLik, the maximum
# gradient and the Hessian's condition number. The outer optimiser (nlminb) and the inner
# Newton for the random-effect modes are run with tighter tolerances than clmm's defaults,
# so that the reference sits at the optimum to well below the tests' tolerances.
suppressPackageStartupMessages({
  library(ordinal)
  library(jsonlite)
  library(numDeriv)
})

out_file <- "tests/stats/reference/clmm.json"

# Latent y* = x'beta + b_g + logistic noise, cut at `cuts` into 1..K.
latent_scores <- function(eta, g, sd_g, cuts) {
  b <- rnorm(max(g), 0, sd_g)
  ystar <- eta + b[g] + rlogis(length(eta))
  as.integer(cut(ystar, c(-Inf, cuts, Inf), labels = FALSE))
}

make_mira <- function() {
  set.seed(20240601)
  groups <- 60; per <- 72
  d <- expand.grid(rep = 1:(per / 8), register = c("formal", "casual"), hls = c("high", "low"),
                   language = c("en", "zh"), g = 1:groups)
  d$model <- factor(sample(c("m1", "m2", "m3", "m4", "m5"), nrow(d), replace = TRUE),
                    levels = c("m1", "m2", "m3", "m4", "m5"))
  eff_model <- c(m1 = 0, m2 = 0.4, m3 = -0.3, m4 = 0.8, m5 = 0.1)
  eta <- 0.5 * (d$language == "zh") - 0.7 * (d$hls == "low") + 0.3 * (d$register == "casual") +
    0.6 * (d$language == "zh") * (d$hls == "low") + eff_model[as.character(d$model)]
  d$y <- latent_scores(eta, d$g, 0.8, c(-1.5, -0.2, 1.0, 2.5))
  list(frame = d, fixed = list("language", "hls", "register", "model", c("language", "hls")),
       factors = c("language", "hls", "register", "model"))
}

make_small <- function() {
  set.seed(7)
  d <- expand.grid(rep = 1:5, arm = c("a", "b"), g = 1:8)
  eta <- 1.0 * (d$arm == "b")
  d$y <- latent_scores(eta, d$g, 1.0, c(-1.0, 0.3, 1.5))
  list(frame = d, fixed = list("arm"), factors = "arm")
}

# Category 5 is rare (about 1% of rows), and most groups never see it.
make_rare <- function() {
  set.seed(99)
  d <- expand.grid(rep = 1:10, lang = c("en", "zh"), g = 1:30)
  eta <- 0.6 * (d$lang == "zh")
  d$y <- latent_scores(eta, d$g, 0.6, c(-1.0, 0.5, 2.0, 4.3))
  list(frame = d, fixed = list("lang"), factors = "lang")
}

# -log L (Laplace) at par = (thresholds, beta, log sd), for data y (1..K), X, groups g.
laplace_nll <- function(par, y, X, g) {
  k <- max(y) - 1
  th <- c(-Inf, par[1:k], Inf)
  eta <- if (ncol(X) > 0) drop(X %*% par[k + seq_len(ncol(X))]) else rep(0, length(y))
  s2 <- exp(2 * par[length(par)])
  if (any(diff(par[1:k]) <= 0)) return(Inf)
  total <- 0
  for (grp in unique(g)) {
    i <- which(g == grp)
    up <- th[y[i] + 1] - eta[i]; lo <- th[y[i]] - eta[i]
    h <- function(b) -sum(log(plogis(up - b) - plogis(lo - b))) + b^2 / (2 * s2)
    b <- optimize(h, c(-20, 20), tol = 1e-12)$minimum
    f1 <- dlogis(up - b); f0 <- dlogis(lo - b)
    d1 <- f1 * (1 - 2 * plogis(up - b)); d0 <- f0 * (1 - 2 * plogis(lo - b))
    p <- plogis(up - b) - plogis(lo - b)
    D <- -sum((d1 - d0) / p - ((f1 - f0) / p)^2) + 1 / s2
    total <- total + h(b) + 0.5 * log(s2) + 0.5 * log(D)
  }
  total
}

# R's column name "languagezh:hlslow" -> ours "language=zh:hls=low".
our_name <- function(col, frame, factors) {
  parts <- strsplit(col, ":", fixed = TRUE)[[1]]
  mapped <- vapply(parts, function(p) {
    for (v in factors) for (l in levels(frame[[v]])) if (identical(p, paste0(v, l))) return(paste0(v, "=", l))
    stop("cannot map column ", col)
  }, "")
  paste(mapped, collapse = ":")
}

reference_case <- function(case) {
  d <- case$frame
  for (v in case$factors) d[[v]] <- factor(d[[v]])  # levels as given: reference first
  d$g <- factor(d$g)
  d$y_ord <- factor(d$y, ordered = TRUE)
  terms <- vapply(case$fixed, function(t) paste(t, collapse = ":"), "")
  formula_text <- paste("y_ord ~", paste(terms, collapse = " + "), "+ (1 | g)")
  call_text <- sprintf("clmm(%s, data, link = \"logit\", nAGQ = 1, control = clmm.control(rel.tol = 1e-13, x.tol = 1e-12, eval.max = 5000, iter.max = 2000, gradTol = 1e-8, maxIter = 200))",
                       formula_text)
  fit <- clmm(as.formula(formula_text), data = d, link = "logit", nAGQ = 1,
              control = clmm.control(rel.tol = 1e-13, x.tol = 1e-12, eval.max = 5000, iter.max = 2000,
                                     gradTol = 1e-8, maxIter = 200))
  s <- coef(summary(fit))
  X <- model.matrix(as.formula(paste("~", paste(terms, collapse = " + "))), d)[, -1, drop = FALSE]
  par <- c(fit$alpha, fit$beta, log(fit$ST$g[1, 1]))
  y_int <- as.integer(d$y_ord)
  H_ref <- numDeriv::hessian(laplace_nll, par, y = y_int, X = X, g = as.integer(d$g))
  se_ref <- sqrt(diag(solve(H_ref)))
  nll_ref <- laplace_nll(par, y_int, X, as.integer(d$g))
  ev <- eigen(fit$Hessian, symmetric = TRUE, only.values = TRUE)$values
  cond_h <- max(ev) / min(ev)
  n_alpha <- length(fit$alpha)
  fixed_rows <- rownames(s)[-(1:n_alpha)]
  codes <- list(); levels_out <- list()
  for (v in case$factors) {
    levels_out[[v]] <- levels(d[[v]])
    codes[[v]] <- as.integer(d[[v]]) - 1L
  }
  levels_out$g <- levels(d$g)
  codes$g <- as.integer(d$g) - 1L
  list(
    call = call_text,
    levels = levels_out, codes = codes, response = d$y,
    fixed = lapply(case$fixed, function(t) I(t)), random = I("g"),
    thresholds = list(names = I(names(fit$alpha)), estimate = I(unname(s[1:n_alpha, "Estimate"])),
                      se = I(unname(se_ref[1:n_alpha])), se_summary = I(unname(s[1:n_alpha, "Std. Error"]))),
    coefficients = list(names = I(vapply(fixed_rows, our_name, "", frame = d, factors = case$factors, USE.NAMES = FALSE)),
                        r_names = I(fixed_rows),
                        estimate = I(unname(s[fixed_rows, "Estimate"])), se = I(unname(se_ref[n_alpha + seq_along(fixed_rows)])),
                        se_summary = I(unname(s[fixed_rows, "Std. Error"])),
                        z = I(unname(s[fixed_rows, "Estimate"] / se_ref[n_alpha + seq_along(fixed_rows)])),
                        p = I(unname(2 * pnorm(-abs(s[fixed_rows, "Estimate"] / se_ref[n_alpha + seq_along(fixed_rows)]))))),
    log_sd_se = unname(se_ref[length(se_ref)]),
    laplace_nll_check = nll_ref,
    variance = unname(VarCorr(fit)$g[1, 1]), sd = unname(fit$ST$g[1, 1]),
    log_likelihood = as.numeric(logLik(fit)),
    n = nrow(d), groups = nlevels(d$g),
    max_gradient = max(abs(fit$gradient)), cond_hessian = cond_h, optimizer_message = fit$optRes$message
  )
}

cases <- list(mira = make_mira(), small = make_small(), rare = make_rare())
out <- list(
  generator = "Rscript tests/stats/reference/generate_clmm.R",
  r_version = R.version.string,
  ordinal_version = as.character(packageVersion("ordinal")),
  cases = lapply(cases, reference_case)
)
writeLines(toJSON(out, auto_unbox = TRUE, digits = NA, pretty = FALSE), out_file)
cat("wrote", out_file, "\n")
