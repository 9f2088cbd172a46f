# recall-state.svg and recall-state.png, written by attnzoo; rerun with `gnuplot recall-state.gp` in this folder.
$s0 << EOD
131584 98.9583 0.589005
263168 99.7521 0.0381881
526336 99.7979 0.0260208
EOD
$s1 << EOD
131584 98.9646 0.499622
263168 99.7271 0.0538855
526336 99.7896 0.0626041
EOD
$s2 << EOD
197120 4.88542 0.0252591
394240 6.61042 0.412752
788480 7.1375 0.303173
EOD
$s3 << EOD
3584 6.36875 0
4864 4.34167 0.0745647
5632 6.7625 0
9728 25.7646 33.7519
9728 64.7375 0
17920 75.5375 0
34304 75.4313 0
35840 96.1625 1.1744
EOD
$s4 << EOD
10240 0.43125 0
18432 1.29375 0
33792 63.5833 2.90564
34816 7.475 0
67584 69.9333 0.731713
67584 70.7687 0
133120 94.3063 0
135168 74.3104 0.613021
EOD
$s5 << EOD
66560 3.99792 0.0691278
133120 7.675 1.8767
266240 6.77083 0.216175
EOD
$s6 << EOD
5376 16.1 0
9728 17.0813 0
12480 51.4563 0
18432 32.1062 0
24960 52.2083 38.5907
35840 52.1812 0
70656 91.3312 0
EOD
$s7 << EOD
9728 6.00625 0
18432 6.1375 0
35328 8.64792 8.02521
35840 85.975 0
70656 70.6063 34.5945
70656 30.9187 0
137216 99.6063 0.0962175
140288 76.475 0
EOD
$s8 << EOD
34816 0.5375 0
67584 1.0875 0
131584 1.54167 0.128746
133120 1.85 0
263168 1.89792 0.110456
526336 1.87292 0.431989
EOD
$s9 << EOD
66048 4.15833 0.248773
132096 6.23958 0.109211
264192 7.05 0.139614
EOD
$front << EOD
3584 6.36875
5376 16.1
9728 64.7375
17920 75.5375
35840 96.1625
131584 98.9646
137216 99.6063
263168 99.7521
526336 99.7979
EOD

set terminal svg size 1000,540 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'recall-state.svg'
set title 'MQAR at T 256, 16 pairs: accuracy against the state kept while decoding'
set logscale x 2
set yrange [0:105]
set xlabel 'decoding state (bytes, measured)'
set ylabel 'test accuracy (%)'
set key outside right
plot $s0 using 1:2:3 with yerrorlines title "flash", $s1 using 1:2:3 with yerrorlines title "full", $s2 using 1:2:3 with yerrorlines title "gmlp", $s3 using 1:2:3 with yerrorlines title "linear", $s4 using 1:2:3 with yerrorlines title "local", $s5 using 1:2:3 with yerrorlines title "longformer", $s6 using 1:2:3 with yerrorlines title "performer", $s7 using 1:2:3 with yerrorlines title "rfa", $s8 using 1:2:3 with yerrorlines title "strided", $s9 using 1:2:3 with yerrorlines title "synthesizer", $front using 1:2 with steps lw 3 lc rgb '#80000000' title 'frontier'

unset output
set terminal pngcairo size 1000,540 noenhanced font 'Helvetica,11' background rgb 'white'
set output 'recall-state.png'
set title 'MQAR at T 256, 16 pairs: accuracy against the state kept while decoding'
set logscale x 2
set yrange [0:105]
set xlabel 'decoding state (bytes, measured)'
set ylabel 'test accuracy (%)'
set key outside right
plot $s0 using 1:2:3 with yerrorlines title "flash", $s1 using 1:2:3 with yerrorlines title "full", $s2 using 1:2:3 with yerrorlines title "gmlp", $s3 using 1:2:3 with yerrorlines title "linear", $s4 using 1:2:3 with yerrorlines title "local", $s5 using 1:2:3 with yerrorlines title "longformer", $s6 using 1:2:3 with yerrorlines title "performer", $s7 using 1:2:3 with yerrorlines title "rfa", $s8 using 1:2:3 with yerrorlines title "strided", $s9 using 1:2:3 with yerrorlines title "synthesizer", $front using 1:2 with steps lw 3 lc rgb '#80000000' title 'frontier'

unset output
