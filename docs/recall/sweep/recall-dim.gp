# recall-dim.svg and recall-dim.png, written by attnzoo; rerun with `gnuplot recall-dim.gp` in this folder.
$d0 << EOD
32 99.6417 0.0968918
64 99.7417 0.0668292
128 99.6417 0.0674112
EOD
$e0 << EOD
32 99.6437
32 99.5438
32 99.7375
64 99.8
64 99.7563
64 99.6687
128 99.6125
128 99.7188
128 99.5938
EOD
$d1 << EOD
64 1.92396 0.586138
EOD
$e1 << EOD
64 1.34688
64 1.90625
64 2.51875
EOD
$d2 << EOD
32 32.8854 31.5445
64 0.7875 0.428433
128 0.372917 0.00954703
EOD
$e2 << EOD
32 1.46875
32 64.5563
32 32.6313
64 0.76875
64 1.225
64 0.36875
128 0.3625
128 0.375
128 0.38125
EOD
$d3 << EOD
8 -50 0
EOD
$e3 << EOD
EOD
$d4 << EOD
32 69.5229 14.7175
64 89.0583 1.7556
128 97.8354 0.197082
EOD
$e4 << EOD
32 76.7
32 79.275
32 52.5937
64 91.0187
64 88.525
64 87.6313
128 97.6437
128 98.0375
128 97.825
EOD
$d5 << EOD
8 -50 0
EOD
$e5 << EOD
EOD
$d6 << EOD
32 98.9583 0.589005
64 99.7521 0.0381881
128 99.7979 0.0260208
EOD
$e6 << EOD
32 98.65
32 99.6375
32 98.5875
64 99.7437
64 99.7188
64 99.7938
128 99.7687
128 99.8187
128 99.8062
EOD
$d7 << EOD
64 66.6948 55.0436
EOD
$e7 << EOD
64 99.3344
64 3.14375
64 97.6063
EOD
$d8 << EOD
32 0.402083 0.040665
64 0.414583 0.0425429
128 0.41875 0.0615554
EOD
$e8 << EOD
32 0.44375
32 0.4
32 0.3625
64 0.4625
64 0.38125
64 0.4
128 0.4875
128 0.36875
128 0.4
EOD
$d9 << EOD
8 -50 0
EOD
$e9 << EOD
EOD
$d10 << EOD
32 98.9646 0.499622
64 99.7271 0.0538855
128 99.7896 0.0626041
EOD
$e10 << EOD
32 98.775
32 99.5312
32 98.5875
64 99.7375
64 99.6687
64 99.775
128 99.85
128 99.7938
128 99.725
EOD
$d11 << EOD
64 66.6646 55.0139
EOD
$e11 << EOD
64 99.2344
64 3.14687
64 97.6125
EOD
$d12 << EOD
32 55.0042 5.01414
64 80.0562 3.0197
128 85.9792 1.90419
EOD
$e12 << EOD
32 51.875
32 60.7875
32 52.35
64 76.6188
64 82.2812
64 81.2687
128 86.5
128 83.8688
128 87.5687
EOD
$d13 << EOD
8 -50 0
EOD
$e13 << EOD
EOD
$d14 << EOD
32 4.88542 0.0252591
64 6.61042 0.412752
128 7.1375 0.303173
EOD
$e14 << EOD
32 4.9125
32 4.88125
32 4.8625
64 7.03125
64 6.59375
64 6.20625
128 6.7875
128 7.30625
128 7.31875
EOD
$d15 << EOD
8 -50 0
EOD
$e15 << EOD
EOD
$d16 << EOD
32 4.34167 0.0745647
64 25.7646 33.7519
128 96.1625 1.1744
EOD
$e16 << EOD
32 4.25625
32 4.375
32 4.39375
64 64.7375
64 6.11875
64 6.4375
128 94.875
128 96.4375
128 97.175
EOD
$d17 << EOD
8 -50 0
EOD
$e17 << EOD
EOD
$d18 << EOD
32 99.975 0.0380173
64 37.3229 54.2746
128 99.9688 0.0541266
EOD
$e18 << EOD
32 99.9938
32 99.9313
32 100
64 6.05
64 99.9938
64 5.925
128 99.9062
128 100
128 100
EOD
$d19 << EOD
8 -50 0
EOD
$e19 << EOD
EOD
$d20 << EOD
32 63.5833 2.90564
64 69.9333 0.731713
128 74.3104 0.613021
EOD
$e20 << EOD
32 63.4438
32 66.5562
32 60.75
64 70.7687
64 69.4062
64 69.625
128 74.0375
128 73.8812
128 75.0125
EOD
$d21 << EOD
8 -50 0
EOD
$e21 << EOD
EOD
$d22 << EOD
32 3.99792 0.0691278
64 7.675 1.8767
128 6.77083 0.216175
EOD
$e22 << EOD
32 4.0625
32 4.00625
32 3.925
64 5.9625
64 7.38125
64 9.68125
128 6.725
128 6.58125
128 7.00625
EOD
$d23 << EOD
8 -50 0
EOD
$e23 << EOD
EOD
$d24 << EOD
32 5.55417 0.140637
64 7.06042 0.0866777
128 7.02917 0.035539
EOD
$e24 << EOD
32 5.7125
32 5.50625
32 5.44375
64 6.9875
64 7.0375
64 7.15625
128 7.06875
128 7
128 7.01875
EOD
$d25 << EOD
8 -50 0
EOD
$e25 << EOD
EOD
$d26 << EOD
32 51.5437 5.55052
64 52.2083 38.5907
128 28.1354 35.9227
EOD
$e26 << EOD
32 51.4563
32 57.1375
32 46.0375
64 10.375
64 86.4188
64 59.8313
128 6.425
128 69.6
128 8.38125
EOD
$d27 << EOD
8 -50 0
EOD
$e27 << EOD
EOD
$d28 << EOD
32 99.8375 0.0634306
64 99.9896 0.00954703
128 99.9 0.01875
EOD
$e28 << EOD
32 99.85
32 99.8937
32 99.7687
64 99.9875
64 100
64 99.9813
128 99.9
128 99.9188
128 99.8812
EOD
$d29 << EOD
64 0.385417 0.0451055
EOD
$e29 << EOD
64 0.359375
64 0.359375
64 0.4375
EOD
$d30 << EOD
32 8.64792 8.02521
64 70.6063 34.5945
128 99.6063 0.0962175
EOD
$e30 << EOD
32 4.1875
32 17.9125
32 3.84375
64 30.9187
64 94.3813
64 86.5187
128 99.525
128 99.7125
128 99.5812
EOD
$d31 << EOD
8 -50 0
EOD
$e31 << EOD
EOD
$d32 << EOD
32 2.64792 2.9974
64 2.18333 0.769774
128 1.36042 0.469971
EOD
$e32 << EOD
32 1.20625
32 0.64375
32 6.09375
64 2.975
64 1.4375
64 2.1375
128 1.7625
128 0.84375
128 1.475
EOD
$d33 << EOD
8 -50 0
EOD
$e33 << EOD
EOD
$d34 << EOD
32 85.2542 2.80472
64 96.7333 1.04273
128 31.0292 43.282
EOD
$e34 << EOD
32 82.9125
32 84.4875
32 88.3625
64 97.275
64 97.3937
64 95.5312
128 5.825
128 81.0063
128 6.25625
EOD
$d35 << EOD
64 0.371875 0.0112673
EOD
$e35 << EOD
64 0.38125
64 0.375
64 0.359375
EOD
$d36 << EOD
32 1.54167 0.128746
64 1.89792 0.110456
128 1.87292 0.431989
EOD
$e36 << EOD
32 1.6875
32 1.44375
32 1.49375
64 2.025
64 1.825
64 1.84375
128 1.45625
128 1.84375
128 2.31875
EOD
$d37 << EOD
8 -50 0
EOD
$e37 << EOD
EOD
$d38 << EOD
32 4.15833 0.248773
64 6.23958 0.109211
128 7.05 0.139614
EOD
$e38 << EOD
32 3.9875
32 4.44375
32 4.04375
64 6.33125
64 6.11875
64 6.26875
128 7.00625
128 7.20625
128 6.9375
EOD
$d39 << EOD
8 -50 0
EOD
$e39 << EOD
EOD

set terminal svg size 1600,1140 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'recall-dim.svg'
set multiplot layout 2,5 title 'MQAR: test accuracy against model dim (lines: mean and sample sd over seeds; dots: each seed)' margins 0.05,0.99,0.140,0.940 spacing 0.04,0.100
set logscale x 2
set xrange [22.8571:179.2]
set xtics (32, 64, 128)
set yrange [0:105]
set xlabel 'model dim' offset 0,0.5
set title 'dense, T 256, 16 pairs'
set key off
set ylabel 'test accuracy (%)'
plot $d6 using 1:2:3 with yerrorlines lc rgb '#1f77b4' pt 5 title "flash", $e6 using 1:2 with points pt 7 ps 0.6 lc rgb '#1f77b4' notitle, $d10 using 1:2:3 with yerrorlines lc rgb '#ff7f0e' pt 6 title "full", $e10 using 1:2 with points pt 7 ps 0.6 lc rgb '#ff7f0e' notitle
set title 'fixed, T 256, 16 pairs'
set key off
unset ylabel
plot $d0 using 1:2:3 with yerrorlines lc rgb '#1f77b4' pt 5 title "bigbird (nc)", $e0 using 1:2 with points pt 7 ps 0.6 lc rgb '#1f77b4' notitle, $d12 using 1:2:3 with yerrorlines lc rgb '#ff7f0e' pt 6 title "global (nc)", $e12 using 1:2 with points pt 7 ps 0.6 lc rgb '#ff7f0e' notitle, $d20 using 1:2:3 with yerrorlines lc rgb '#2ca02c' pt 7 title "local", $e20 using 1:2 with points pt 7 ps 0.6 lc rgb '#2ca02c' notitle, $d22 using 1:2:3 with yerrorlines lc rgb '#d62728' pt 8 title "longformer", $e22 using 1:2 with points pt 7 ps 0.6 lc rgb '#d62728' notitle, $d36 using 1:2:3 with yerrorlines lc rgb '#9467bd' pt 5 title "strided", $e36 using 1:2 with points pt 7 ps 0.6 lc rgb '#9467bd' notitle
set title 'learned, T 256, 16 pairs'
set key off
unset ylabel
plot $d28 using 1:2:3 with yerrorlines lc rgb '#1f77b4' pt 5 title "reformer (nc)", $e28 using 1:2 with points pt 7 ps 0.6 lc rgb '#1f77b4' notitle, $d32 using 1:2:3 with yerrorlines lc rgb '#ff7f0e' pt 6 title "routing (nc)", $e32 using 1:2 with points pt 7 ps 0.6 lc rgb '#ff7f0e' notitle, $d34 using 1:2:3 with yerrorlines lc rgb '#2ca02c' pt 7 title "sinkhorn (nc)", $e34 using 1:2 with points pt 7 ps 0.6 lc rgb '#2ca02c' notitle
set title 'low-rank/kernel, T 256, 16 pairs'
set key off
unset ylabel
plot $d2 using 1:2:3 with yerrorlines lc rgb '#1f77b4' pt 5 title "compressed (nc)", $e2 using 1:2 with points pt 7 ps 0.6 lc rgb '#1f77b4' notitle, $d4 using 1:2:3 with yerrorlines lc rgb '#ff7f0e' pt 6 title "efficient (nc)", $e4 using 1:2 with points pt 7 ps 0.6 lc rgb '#ff7f0e' notitle, $d16 using 1:2:3 with yerrorlines lc rgb '#2ca02c' pt 7 title "linear", $e16 using 1:2 with points pt 7 ps 0.6 lc rgb '#2ca02c' notitle, $d18 using 1:2:3 with yerrorlines lc rgb '#d62728' pt 8 title "linformer (nc)", $e18 using 1:2 with points pt 7 ps 0.6 lc rgb '#d62728' notitle, $d26 using 1:2:3 with yerrorlines lc rgb '#9467bd' pt 5 title "performer", $e26 using 1:2 with points pt 7 ps 0.6 lc rgb '#9467bd' notitle, $d30 using 1:2:3 with yerrorlines lc rgb '#8c564b' pt 6 title "rfa", $e30 using 1:2 with points pt 7 ps 0.6 lc rgb '#8c564b' notitle, $d38 using 1:2:3 with yerrorlines lc rgb '#e377c2' pt 7 title "synthesizer", $e38 using 1:2 with points pt 7 ps 0.6 lc rgb '#e377c2' notitle
set title 'attention-free, T 256, 16 pairs'
set key off
unset ylabel
plot $d8 using 1:2:3 with yerrorlines lc rgb '#1f77b4' pt 5 title "fnet (nc)", $e8 using 1:2 with points pt 7 ps 0.6 lc rgb '#1f77b4' notitle, $d14 using 1:2:3 with yerrorlines lc rgb '#ff7f0e' pt 6 title "gmlp", $e14 using 1:2 with points pt 7 ps 0.6 lc rgb '#ff7f0e' notitle, $d24 using 1:2:3 with yerrorlines lc rgb '#2ca02c' pt 7 title "mixer", $e24 using 1:2 with points pt 7 ps 0.6 lc rgb '#2ca02c' notitle
set title 'dense, T 512, 32 pairs'
set key below horizontal maxcols 2 samplen 1 width -3 font ',9'
set ylabel 'test accuracy (%)'
plot $d7 using 1:2:3 with yerrorlines lc rgb '#1f77b4' pt 5 title "flash", $e7 using 1:2 with points pt 7 ps 0.6 lc rgb '#1f77b4' notitle, $d11 using 1:2:3 with yerrorlines lc rgb '#ff7f0e' pt 6 title "full", $e11 using 1:2 with points pt 7 ps 0.6 lc rgb '#ff7f0e' notitle
set title 'fixed, T 512, 32 pairs'
set key below horizontal maxcols 2 samplen 1 width -3 font ',9'
unset ylabel
plot $d1 using 1:2:3 with yerrorlines lc rgb '#1f77b4' pt 5 title "bigbird (nc)", $e1 using 1:2 with points pt 7 ps 0.6 lc rgb '#1f77b4' notitle, $d13 using 1:2:3 with yerrorlines lc rgb '#ff7f0e' pt 6 title "global (nc)", $e13 using 1:2 with points pt 7 ps 0.6 lc rgb '#ff7f0e' notitle, $d21 using 1:2:3 with yerrorlines lc rgb '#2ca02c' pt 7 title "local", $e21 using 1:2 with points pt 7 ps 0.6 lc rgb '#2ca02c' notitle, $d23 using 1:2:3 with yerrorlines lc rgb '#d62728' pt 8 title "longformer", $e23 using 1:2 with points pt 7 ps 0.6 lc rgb '#d62728' notitle, $d37 using 1:2:3 with yerrorlines lc rgb '#9467bd' pt 5 title "strided", $e37 using 1:2 with points pt 7 ps 0.6 lc rgb '#9467bd' notitle
set title 'learned, T 512, 32 pairs'
set key below horizontal maxcols 2 samplen 1 width -3 font ',9'
unset ylabel
plot $d29 using 1:2:3 with yerrorlines lc rgb '#1f77b4' pt 5 title "reformer (nc)", $e29 using 1:2 with points pt 7 ps 0.6 lc rgb '#1f77b4' notitle, $d33 using 1:2:3 with yerrorlines lc rgb '#ff7f0e' pt 6 title "routing (nc)", $e33 using 1:2 with points pt 7 ps 0.6 lc rgb '#ff7f0e' notitle, $d35 using 1:2:3 with yerrorlines lc rgb '#2ca02c' pt 7 title "sinkhorn (nc)", $e35 using 1:2 with points pt 7 ps 0.6 lc rgb '#2ca02c' notitle
set title 'low-rank/kernel, T 512, 32 pairs'
set key below horizontal maxcols 2 samplen 1 width -3 font ',9'
unset ylabel
plot $d3 using 1:2:3 with yerrorlines lc rgb '#1f77b4' pt 5 title "compressed (nc)", $e3 using 1:2 with points pt 7 ps 0.6 lc rgb '#1f77b4' notitle, $d5 using 1:2:3 with yerrorlines lc rgb '#ff7f0e' pt 6 title "efficient (nc)", $e5 using 1:2 with points pt 7 ps 0.6 lc rgb '#ff7f0e' notitle, $d17 using 1:2:3 with yerrorlines lc rgb '#2ca02c' pt 7 title "linear", $e17 using 1:2 with points pt 7 ps 0.6 lc rgb '#2ca02c' notitle, $d19 using 1:2:3 with yerrorlines lc rgb '#d62728' pt 8 title "linformer (nc)", $e19 using 1:2 with points pt 7 ps 0.6 lc rgb '#d62728' notitle, $d27 using 1:2:3 with yerrorlines lc rgb '#9467bd' pt 5 title "performer", $e27 using 1:2 with points pt 7 ps 0.6 lc rgb '#9467bd' notitle, $d31 using 1:2:3 with yerrorlines lc rgb '#8c564b' pt 6 title "rfa", $e31 using 1:2 with points pt 7 ps 0.6 lc rgb '#8c564b' notitle, $d39 using 1:2:3 with yerrorlines lc rgb '#e377c2' pt 7 title "synthesizer", $e39 using 1:2 with points pt 7 ps 0.6 lc rgb '#e377c2' notitle
set title 'attention-free, T 512, 32 pairs'
set key below horizontal maxcols 2 samplen 1 width -3 font ',9'
unset ylabel
plot $d9 using 1:2:3 with yerrorlines lc rgb '#1f77b4' pt 5 title "fnet (nc)", $e9 using 1:2 with points pt 7 ps 0.6 lc rgb '#1f77b4' notitle, $d15 using 1:2:3 with yerrorlines lc rgb '#ff7f0e' pt 6 title "gmlp", $e15 using 1:2 with points pt 7 ps 0.6 lc rgb '#ff7f0e' notitle, $d25 using 1:2:3 with yerrorlines lc rgb '#2ca02c' pt 7 title "mixer", $e25 using 1:2 with points pt 7 ps 0.6 lc rgb '#2ca02c' notitle
unset multiplot

unset output
set terminal pngcairo size 1600,1140 noenhanced font 'Helvetica,11' background rgb 'white'
set output 'recall-dim.png'
set multiplot layout 2,5 title 'MQAR: test accuracy against model dim (lines: mean and sample sd over seeds; dots: each seed)' margins 0.05,0.99,0.140,0.940 spacing 0.04,0.100
set logscale x 2
set xrange [22.8571:179.2]
set xtics (32, 64, 128)
set yrange [0:105]
set xlabel 'model dim' offset 0,0.5
set title 'dense, T 256, 16 pairs'
set key off
set ylabel 'test accuracy (%)'
plot $d6 using 1:2:3 with yerrorlines lc rgb '#1f77b4' pt 5 title "flash", $e6 using 1:2 with points pt 7 ps 0.6 lc rgb '#1f77b4' notitle, $d10 using 1:2:3 with yerrorlines lc rgb '#ff7f0e' pt 6 title "full", $e10 using 1:2 with points pt 7 ps 0.6 lc rgb '#ff7f0e' notitle
set title 'fixed, T 256, 16 pairs'
set key off
unset ylabel
plot $d0 using 1:2:3 with yerrorlines lc rgb '#1f77b4' pt 5 title "bigbird (nc)", $e0 using 1:2 with points pt 7 ps 0.6 lc rgb '#1f77b4' notitle, $d12 using 1:2:3 with yerrorlines lc rgb '#ff7f0e' pt 6 title "global (nc)", $e12 using 1:2 with points pt 7 ps 0.6 lc rgb '#ff7f0e' notitle, $d20 using 1:2:3 with yerrorlines lc rgb '#2ca02c' pt 7 title "local", $e20 using 1:2 with points pt 7 ps 0.6 lc rgb '#2ca02c' notitle, $d22 using 1:2:3 with yerrorlines lc rgb '#d62728' pt 8 title "longformer", $e22 using 1:2 with points pt 7 ps 0.6 lc rgb '#d62728' notitle, $d36 using 1:2:3 with yerrorlines lc rgb '#9467bd' pt 5 title "strided", $e36 using 1:2 with points pt 7 ps 0.6 lc rgb '#9467bd' notitle
set title 'learned, T 256, 16 pairs'
set key off
unset ylabel
plot $d28 using 1:2:3 with yerrorlines lc rgb '#1f77b4' pt 5 title "reformer (nc)", $e28 using 1:2 with points pt 7 ps 0.6 lc rgb '#1f77b4' notitle, $d32 using 1:2:3 with yerrorlines lc rgb '#ff7f0e' pt 6 title "routing (nc)", $e32 using 1:2 with points pt 7 ps 0.6 lc rgb '#ff7f0e' notitle, $d34 using 1:2:3 with yerrorlines lc rgb '#2ca02c' pt 7 title "sinkhorn (nc)", $e34 using 1:2 with points pt 7 ps 0.6 lc rgb '#2ca02c' notitle
set title 'low-rank/kernel, T 256, 16 pairs'
set key off
unset ylabel
plot $d2 using 1:2:3 with yerrorlines lc rgb '#1f77b4' pt 5 title "compressed (nc)", $e2 using 1:2 with points pt 7 ps 0.6 lc rgb '#1f77b4' notitle, $d4 using 1:2:3 with yerrorlines lc rgb '#ff7f0e' pt 6 title "efficient (nc)", $e4 using 1:2 with points pt 7 ps 0.6 lc rgb '#ff7f0e' notitle, $d16 using 1:2:3 with yerrorlines lc rgb '#2ca02c' pt 7 title "linear", $e16 using 1:2 with points pt 7 ps 0.6 lc rgb '#2ca02c' notitle, $d18 using 1:2:3 with yerrorlines lc rgb '#d62728' pt 8 title "linformer (nc)", $e18 using 1:2 with points pt 7 ps 0.6 lc rgb '#d62728' notitle, $d26 using 1:2:3 with yerrorlines lc rgb '#9467bd' pt 5 title "performer", $e26 using 1:2 with points pt 7 ps 0.6 lc rgb '#9467bd' notitle, $d30 using 1:2:3 with yerrorlines lc rgb '#8c564b' pt 6 title "rfa", $e30 using 1:2 with points pt 7 ps 0.6 lc rgb '#8c564b' notitle, $d38 using 1:2:3 with yerrorlines lc rgb '#e377c2' pt 7 title "synthesizer", $e38 using 1:2 with points pt 7 ps 0.6 lc rgb '#e377c2' notitle
set title 'attention-free, T 256, 16 pairs'
set key off
unset ylabel
plot $d8 using 1:2:3 with yerrorlines lc rgb '#1f77b4' pt 5 title "fnet (nc)", $e8 using 1:2 with points pt 7 ps 0.6 lc rgb '#1f77b4' notitle, $d14 using 1:2:3 with yerrorlines lc rgb '#ff7f0e' pt 6 title "gmlp", $e14 using 1:2 with points pt 7 ps 0.6 lc rgb '#ff7f0e' notitle, $d24 using 1:2:3 with yerrorlines lc rgb '#2ca02c' pt 7 title "mixer", $e24 using 1:2 with points pt 7 ps 0.6 lc rgb '#2ca02c' notitle
set title 'dense, T 512, 32 pairs'
set key below horizontal maxcols 2 samplen 1 width -3 font ',9'
set ylabel 'test accuracy (%)'
plot $d7 using 1:2:3 with yerrorlines lc rgb '#1f77b4' pt 5 title "flash", $e7 using 1:2 with points pt 7 ps 0.6 lc rgb '#1f77b4' notitle, $d11 using 1:2:3 with yerrorlines lc rgb '#ff7f0e' pt 6 title "full", $e11 using 1:2 with points pt 7 ps 0.6 lc rgb '#ff7f0e' notitle
set title 'fixed, T 512, 32 pairs'
set key below horizontal maxcols 2 samplen 1 width -3 font ',9'
unset ylabel
plot $d1 using 1:2:3 with yerrorlines lc rgb '#1f77b4' pt 5 title "bigbird (nc)", $e1 using 1:2 with points pt 7 ps 0.6 lc rgb '#1f77b4' notitle, $d13 using 1:2:3 with yerrorlines lc rgb '#ff7f0e' pt 6 title "global (nc)", $e13 using 1:2 with points pt 7 ps 0.6 lc rgb '#ff7f0e' notitle, $d21 using 1:2:3 with yerrorlines lc rgb '#2ca02c' pt 7 title "local", $e21 using 1:2 with points pt 7 ps 0.6 lc rgb '#2ca02c' notitle, $d23 using 1:2:3 with yerrorlines lc rgb '#d62728' pt 8 title "longformer", $e23 using 1:2 with points pt 7 ps 0.6 lc rgb '#d62728' notitle, $d37 using 1:2:3 with yerrorlines lc rgb '#9467bd' pt 5 title "strided", $e37 using 1:2 with points pt 7 ps 0.6 lc rgb '#9467bd' notitle
set title 'learned, T 512, 32 pairs'
set key below horizontal maxcols 2 samplen 1 width -3 font ',9'
unset ylabel
plot $d29 using 1:2:3 with yerrorlines lc rgb '#1f77b4' pt 5 title "reformer (nc)", $e29 using 1:2 with points pt 7 ps 0.6 lc rgb '#1f77b4' notitle, $d33 using 1:2:3 with yerrorlines lc rgb '#ff7f0e' pt 6 title "routing (nc)", $e33 using 1:2 with points pt 7 ps 0.6 lc rgb '#ff7f0e' notitle, $d35 using 1:2:3 with yerrorlines lc rgb '#2ca02c' pt 7 title "sinkhorn (nc)", $e35 using 1:2 with points pt 7 ps 0.6 lc rgb '#2ca02c' notitle
set title 'low-rank/kernel, T 512, 32 pairs'
set key below horizontal maxcols 2 samplen 1 width -3 font ',9'
unset ylabel
plot $d3 using 1:2:3 with yerrorlines lc rgb '#1f77b4' pt 5 title "compressed (nc)", $e3 using 1:2 with points pt 7 ps 0.6 lc rgb '#1f77b4' notitle, $d5 using 1:2:3 with yerrorlines lc rgb '#ff7f0e' pt 6 title "efficient (nc)", $e5 using 1:2 with points pt 7 ps 0.6 lc rgb '#ff7f0e' notitle, $d17 using 1:2:3 with yerrorlines lc rgb '#2ca02c' pt 7 title "linear", $e17 using 1:2 with points pt 7 ps 0.6 lc rgb '#2ca02c' notitle, $d19 using 1:2:3 with yerrorlines lc rgb '#d62728' pt 8 title "linformer (nc)", $e19 using 1:2 with points pt 7 ps 0.6 lc rgb '#d62728' notitle, $d27 using 1:2:3 with yerrorlines lc rgb '#9467bd' pt 5 title "performer", $e27 using 1:2 with points pt 7 ps 0.6 lc rgb '#9467bd' notitle, $d31 using 1:2:3 with yerrorlines lc rgb '#8c564b' pt 6 title "rfa", $e31 using 1:2 with points pt 7 ps 0.6 lc rgb '#8c564b' notitle, $d39 using 1:2:3 with yerrorlines lc rgb '#e377c2' pt 7 title "synthesizer", $e39 using 1:2 with points pt 7 ps 0.6 lc rgb '#e377c2' notitle
set title 'attention-free, T 512, 32 pairs'
set key below horizontal maxcols 2 samplen 1 width -3 font ',9'
unset ylabel
plot $d9 using 1:2:3 with yerrorlines lc rgb '#1f77b4' pt 5 title "fnet (nc)", $e9 using 1:2 with points pt 7 ps 0.6 lc rgb '#1f77b4' notitle, $d15 using 1:2:3 with yerrorlines lc rgb '#ff7f0e' pt 6 title "gmlp", $e15 using 1:2 with points pt 7 ps 0.6 lc rgb '#ff7f0e' notitle, $d25 using 1:2:3 with yerrorlines lc rgb '#2ca02c' pt 7 title "mixer", $e25 using 1:2 with points pt 7 ps 0.6 lc rgb '#2ca02c' notitle
unset multiplot

unset output
