# recall-state.svg and recall-state.png, written by attnzoo; rerun with `gnuplot recall-state.gp` in this folder.
$s0 << EOD
131584 98.9583 0.589005
263168 99.7521 0.0381881
526336 99.7979 0.0260208
EOD
$e0 << EOD
131584 98.65
131584 99.6375
131584 98.5875
263168 99.7437
263168 99.7188
263168 99.7938
526336 99.7687
526336 99.8187
526336 99.8062
EOD
$s1 << EOD
131584 98.9646 0.499622
263168 99.7271 0.0538855
526336 99.7896 0.0626041
EOD
$e1 << EOD
131584 98.775
131584 99.5312
131584 98.5875
263168 99.7375
263168 99.6687
263168 99.775
526336 99.85
526336 99.7938
526336 99.725
EOD
$s2 << EOD
197120 4.88542 0.0252591
394240 6.61042 0.412752
788480 7.1375 0.303173
EOD
$e2 << EOD
197120 4.9125
197120 4.88125
197120 4.8625
394240 7.03125
394240 6.59375
394240 6.20625
788480 6.7875
788480 7.30625
788480 7.31875
EOD
$s3 << EOD
4864 4.34167 0.0745647
9728 25.7646 33.7519
35840 96.1625 1.1744
EOD
$e3 << EOD
4864 4.25625
4864 4.375
4864 4.39375
9728 64.7375
9728 6.11875
9728 6.4375
35840 94.875
35840 96.4375
35840 97.175
EOD
$s4 << EOD
3584 6.35208 0.181824
5632 6.33958 0.370089
9728 25.7646 33.7519
17920 45.4042 26.2932
34304 71.2292 5.72196
EOD
$e4 << EOD
3584 6.36875
3584 6.525
3584 6.1625
5632 6.7625
5632 6.18125
5632 6.075
9728 64.7375
9728 6.11875
9728 6.4375
17920 75.5375
17920 33.55
17920 27.125
34304 75.4313
34304 73.5438
34304 64.7125
EOD
$s5 << EOD
33792 63.5833 2.90564
67584 69.9333 0.731713
135168 74.3104 0.613021
EOD
$e5 << EOD
33792 63.4438
33792 66.5562
33792 60.75
67584 70.7687
67584 69.4062
67584 69.625
135168 74.0375
135168 73.8812
135168 75.0125
EOD
$s6 << EOD
10240 0.408333 0.0219493
18432 1.59375 0.283119
34816 5.51042 2.02431
67584 69.9646 1.13799
133120 93.675 0.67555
EOD
$e6 << EOD
10240 0.43125
10240 0.40625
10240 0.3875
18432 1.29375
18432 1.63125
18432 1.85625
34816 7.475
34816 5.625
34816 3.43125
67584 70.7687
67584 68.6625
67584 70.4625
133120 94.3063
133120 93.7562
133120 92.9625
EOD
$s7 << EOD
66560 3.99792 0.0691278
133120 7.675 1.8767
266240 6.77083 0.216175
EOD
$e7 << EOD
66560 4.0625
66560 4.00625
66560 3.925
133120 5.9625
133120 7.38125
133120 9.68125
266240 6.725
266240 6.58125
266240 7.00625
EOD
$s8 << EOD
131584 5.55417 0.140637
263168 7.06042 0.0866777
526336 7.02917 0.035539
EOD
$e8 << EOD
131584 5.7125
131584 5.50625
131584 5.44375
263168 6.9875
263168 7.0375
263168 7.15625
526336 7.06875
526336 7
526336 7.01875
EOD
$s9 << EOD
12480 51.5437 5.55052
24960 52.2083 38.5907
118208 28.1354 35.9227
EOD
$e9 << EOD
12480 51.4563
12480 57.1375
12480 46.0375
24960 10.375
24960 86.4188
24960 59.8313
118208 6.425
118208 69.6
118208 8.38125
EOD
$s10 << EOD
5376 30.9521 18.3255
9728 36.5187 29.4942
18432 58.5646 24.9115
35840 68.5833 21.1977
70656 88.5438 9.05883
EOD
$e10 << EOD
5376 16.1
5376 51.4312
5376 25.325
9728 17.0813
9728 70.4562
9728 22.0188
18432 32.1062
18432 81.5687
18432 62.0187
35840 52.1812
35840 92.5188
35840 61.05
70656 91.3312
70656 78.4188
70656 95.8812
EOD
$s11 << EOD
35328 8.64792 8.02521
70656 70.6063 34.5945
137216 99.6063 0.0962175
EOD
$e11 << EOD
35328 4.1875
35328 17.9125
35328 3.84375
70656 30.9187
70656 94.3813
70656 86.5187
137216 99.525
137216 99.7125
137216 99.5812
EOD
$s12 << EOD
9728 6.05625 0.132288
18432 6.19583 0.0668292
35840 79.8021 7.13266
70656 70.5854 34.6983
140288 76.4688 15.7156
EOD
$e12 << EOD
9728 6.00625
9728 6.20625
9728 5.95625
18432 6.1375
18432 6.26875
18432 6.18125
35840 85.975
35840 71.9938
35840 81.4375
70656 30.9187
70656 95.3063
70656 85.5312
140288 76.475
140288 92.1813
140288 60.75
EOD
$s13 << EOD
131584 1.54167 0.128746
263168 1.89792 0.110456
526336 1.87292 0.431989
EOD
$e13 << EOD
131584 1.6875
131584 1.44375
131584 1.49375
263168 2.025
263168 1.825
263168 1.84375
526336 1.45625
526336 1.84375
526336 2.31875
EOD
$s14 << EOD
34816 0.420833 0.101229
67584 0.945833 0.137689
133120 1.85625 0.0845484
263168 1.9 0.115752
EOD
$e14 << EOD
34816 0.5375
34816 0.36875
34816 0.35625
67584 1.0875
67584 0.8125
67584 0.9375
133120 1.85
133120 1.775
133120 1.94375
263168 2.01875
263168 1.89375
263168 1.7875
EOD
$s15 << EOD
66048 4.15833 0.248773
132096 6.23958 0.109211
264192 7.05 0.139614
EOD
$e15 << EOD
66048 3.9875
66048 4.44375
66048 4.04375
132096 6.33125
132096 6.11875
132096 6.26875
264192 7.00625
264192 7.20625
264192 6.9375
EOD
$front << EOD
3584 6.35208
5376 30.9521
9728 36.5187
12480 51.5437
18432 58.5646
33792 63.5833
34304 71.2292
35840 96.1625
131584 98.9646
137216 99.6063
263168 99.7521
526336 99.7979
EOD

set terminal svg size 1150,600 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'recall-state.svg'
set title 'MQAR at T 256, 16 pairs: accuracy against the state kept while decoding (dots: each seed)'
set logscale x 2
set format x '%g'
set yrange [0:105]
set xlabel 'decoding state (KiB, measured)'
set ylabel 'test accuracy (%)'
set key outside right
plot $s0 using ($1/1024):2:3 with yerrorlines lc rgb '#1f77b4' dt 2 pt 6 title "flash: dims", $e0 using ($1/1024):2 with points pt 7 ps 0.6 lc rgb '#1f77b4' notitle, $s1 using ($1/1024):2:3 with yerrorlines lc rgb '#ff7f0e' dt 2 pt 6 title "full: dims", $e1 using ($1/1024):2 with points pt 7 ps 0.6 lc rgb '#ff7f0e' notitle, $s2 using ($1/1024):2:3 with yerrorlines lc rgb '#2ca02c' dt 2 pt 6 title "gmlp: dims", $e2 using ($1/1024):2 with points pt 7 ps 0.6 lc rgb '#2ca02c' notitle, $s3 using ($1/1024):2:3 with yerrorlines lc rgb '#d62728' dt 2 pt 6 title "linear: dims", $e3 using ($1/1024):2 with points pt 7 ps 0.6 lc rgb '#d62728' notitle, $s4 using ($1/1024):2:3 with yerrorlines lc rgb '#d62728' dt 1 pt 7 title "linear: heads, dim 64", $e4 using ($1/1024):2 with points pt 7 ps 0.6 lc rgb '#d62728' notitle, $s5 using ($1/1024):2:3 with yerrorlines lc rgb '#9467bd' dt 2 pt 6 title "local: dims", $e5 using ($1/1024):2 with points pt 7 ps 0.6 lc rgb '#9467bd' notitle, $s6 using ($1/1024):2:3 with yerrorlines lc rgb '#9467bd' dt 1 pt 7 title "local: window, dim 64", $e6 using ($1/1024):2 with points pt 7 ps 0.6 lc rgb '#9467bd' notitle, $s7 using ($1/1024):2:3 with yerrorlines lc rgb '#8c564b' dt 2 pt 6 title "longformer: dims", $e7 using ($1/1024):2 with points pt 7 ps 0.6 lc rgb '#8c564b' notitle, $s8 using ($1/1024):2:3 with yerrorlines lc rgb '#e377c2' dt 2 pt 6 title "mixer: dims", $e8 using ($1/1024):2 with points pt 7 ps 0.6 lc rgb '#e377c2' notitle, $s9 using ($1/1024):2:3 with yerrorlines lc rgb '#bcbd22' dt 2 pt 6 title "performer: dims", $e9 using ($1/1024):2 with points pt 7 ps 0.6 lc rgb '#bcbd22' notitle, $s10 using ($1/1024):2:3 with yerrorlines lc rgb '#bcbd22' dt 1 pt 7 title "performer: features, dim 64", $e10 using ($1/1024):2 with points pt 7 ps 0.6 lc rgb '#bcbd22' notitle, $s11 using ($1/1024):2:3 with yerrorlines lc rgb '#17becf' dt 2 pt 6 title "rfa: dims", $e11 using ($1/1024):2 with points pt 7 ps 0.6 lc rgb '#17becf' notitle, $s12 using ($1/1024):2:3 with yerrorlines lc rgb '#17becf' dt 1 pt 7 title "rfa: features, dim 64", $e12 using ($1/1024):2 with points pt 7 ps 0.6 lc rgb '#17becf' notitle, $s13 using ($1/1024):2:3 with yerrorlines lc rgb '#000000' dt 2 pt 6 title "strided: dims", $e13 using ($1/1024):2 with points pt 7 ps 0.6 lc rgb '#000000' notitle, $s14 using ($1/1024):2:3 with yerrorlines lc rgb '#000000' dt 1 pt 7 title "strided: window, dim 64", $e14 using ($1/1024):2 with points pt 7 ps 0.6 lc rgb '#000000' notitle, $s15 using ($1/1024):2:3 with yerrorlines lc rgb '#393b79' dt 2 pt 6 title "synthesizer: dims", $e15 using ($1/1024):2 with points pt 7 ps 0.6 lc rgb '#393b79' notitle, $front using ($1/1024):2 with steps lw 3 lc rgb '#80000000' title 'frontier'

unset output
set terminal pngcairo size 1150,600 noenhanced font 'Helvetica,11' background rgb 'white'
set output 'recall-state.png'
set title 'MQAR at T 256, 16 pairs: accuracy against the state kept while decoding (dots: each seed)'
set logscale x 2
set format x '%g'
set yrange [0:105]
set xlabel 'decoding state (KiB, measured)'
set ylabel 'test accuracy (%)'
set key outside right
plot $s0 using ($1/1024):2:3 with yerrorlines lc rgb '#1f77b4' dt 2 pt 6 title "flash: dims", $e0 using ($1/1024):2 with points pt 7 ps 0.6 lc rgb '#1f77b4' notitle, $s1 using ($1/1024):2:3 with yerrorlines lc rgb '#ff7f0e' dt 2 pt 6 title "full: dims", $e1 using ($1/1024):2 with points pt 7 ps 0.6 lc rgb '#ff7f0e' notitle, $s2 using ($1/1024):2:3 with yerrorlines lc rgb '#2ca02c' dt 2 pt 6 title "gmlp: dims", $e2 using ($1/1024):2 with points pt 7 ps 0.6 lc rgb '#2ca02c' notitle, $s3 using ($1/1024):2:3 with yerrorlines lc rgb '#d62728' dt 2 pt 6 title "linear: dims", $e3 using ($1/1024):2 with points pt 7 ps 0.6 lc rgb '#d62728' notitle, $s4 using ($1/1024):2:3 with yerrorlines lc rgb '#d62728' dt 1 pt 7 title "linear: heads, dim 64", $e4 using ($1/1024):2 with points pt 7 ps 0.6 lc rgb '#d62728' notitle, $s5 using ($1/1024):2:3 with yerrorlines lc rgb '#9467bd' dt 2 pt 6 title "local: dims", $e5 using ($1/1024):2 with points pt 7 ps 0.6 lc rgb '#9467bd' notitle, $s6 using ($1/1024):2:3 with yerrorlines lc rgb '#9467bd' dt 1 pt 7 title "local: window, dim 64", $e6 using ($1/1024):2 with points pt 7 ps 0.6 lc rgb '#9467bd' notitle, $s7 using ($1/1024):2:3 with yerrorlines lc rgb '#8c564b' dt 2 pt 6 title "longformer: dims", $e7 using ($1/1024):2 with points pt 7 ps 0.6 lc rgb '#8c564b' notitle, $s8 using ($1/1024):2:3 with yerrorlines lc rgb '#e377c2' dt 2 pt 6 title "mixer: dims", $e8 using ($1/1024):2 with points pt 7 ps 0.6 lc rgb '#e377c2' notitle, $s9 using ($1/1024):2:3 with yerrorlines lc rgb '#bcbd22' dt 2 pt 6 title "performer: dims", $e9 using ($1/1024):2 with points pt 7 ps 0.6 lc rgb '#bcbd22' notitle, $s10 using ($1/1024):2:3 with yerrorlines lc rgb '#bcbd22' dt 1 pt 7 title "performer: features, dim 64", $e10 using ($1/1024):2 with points pt 7 ps 0.6 lc rgb '#bcbd22' notitle, $s11 using ($1/1024):2:3 with yerrorlines lc rgb '#17becf' dt 2 pt 6 title "rfa: dims", $e11 using ($1/1024):2 with points pt 7 ps 0.6 lc rgb '#17becf' notitle, $s12 using ($1/1024):2:3 with yerrorlines lc rgb '#17becf' dt 1 pt 7 title "rfa: features, dim 64", $e12 using ($1/1024):2 with points pt 7 ps 0.6 lc rgb '#17becf' notitle, $s13 using ($1/1024):2:3 with yerrorlines lc rgb '#000000' dt 2 pt 6 title "strided: dims", $e13 using ($1/1024):2 with points pt 7 ps 0.6 lc rgb '#000000' notitle, $s14 using ($1/1024):2:3 with yerrorlines lc rgb '#000000' dt 1 pt 7 title "strided: window, dim 64", $e14 using ($1/1024):2 with points pt 7 ps 0.6 lc rgb '#000000' notitle, $s15 using ($1/1024):2:3 with yerrorlines lc rgb '#393b79' dt 2 pt 6 title "synthesizer: dims", $e15 using ($1/1024):2 with points pt 7 ps 0.6 lc rgb '#393b79' notitle, $front using ($1/1024):2 with steps lw 3 lc rgb '#80000000' title 'frontier'

unset output
